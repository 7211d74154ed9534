"""Deterministic one-line fixes: the anchored line rewritten so the rule no longer fires.

A rewrite is offered only when the whole construct sits on the one flagged line and the
rewrite is certain (``yaml.load(`` → ``yaml.safe_load(``); anything less certain returns None
and the reviewer gets the explanation's prose fix instead. The result keeps the line's
indentation, so it can be posted as a ``suggestion`` block over exactly that line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from code_guard.python_parse import parse_python

Rewrite = Callable[[str], str | None]

_TIMEOUT_SECONDS = 10


def _sub(pattern: str, replacement: str | Callable[[re.Match[str]], str]) -> Rewrite:
    """A rewrite that applies ``pattern`` once, or gives None when it does not match."""
    compiled = re.compile(pattern)

    def rewrite(line: str) -> str | None:
        new, count = compiled.subn(replacement, line, count=1)
        return new if count else None

    return rewrite


def _add_keyword(call: str, keyword: str) -> Rewrite:
    """Add ``keyword`` to the one call of ``call`` on the line, before its closing paren."""
    start = re.compile(call)

    def rewrite(line: str) -> str | None:
        match = start.search(line)
        if match is None:
            return None
        close = _closing_paren(line, match.end() - 1)
        if close is None:
            return None
        inside = line[match.end() : close].strip()
        sep = ", " if inside and not inside.endswith(",") else ("" if not inside else " ")
        return line[:close] + sep + keyword + line[close:]

    return rewrite


def _closing_paren(line: str, open_at: int) -> int | None:
    """Index of the paren closing the one at ``open_at``, ignoring parens inside strings."""
    depth, quote = 0, ""
    for index in range(open_at, len(line)):
        char = line[index]
        if quote:
            if char == quote and line[index - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
    return None


def _remove_import(line: str) -> str | None:
    """An import of one name only: the fix is to delete the line."""
    if re.fullmatch(r"\s*(import [\w.]+|from [\w.]+ import \w+)\s*(#.*)?", line):
        return ""
    return None


def _parameterise(line: str) -> str | None:
    """``cur.execute(f"... '{x}'")`` or ``"..." % x`` → ``cur.execute("... %s", (x,))``."""
    indent = line[: len(line) - len(line.lstrip())]
    tree = parse_python(line.strip())
    if tree is None:
        return None
    statement = tree.body[0] if len(tree.body) == 1 else None
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call) or len(call.args) != 1 or call.keywords:
        return None
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in ("execute", "executemany")):
        return None
    marker = "?" if "sqlite" in ast.unparse(call.func.value).lower() else "%s"
    parts = _query_parts(call.args[0])
    if parts is None:
        return None
    sql, params = "", []
    for text, expr in parts:
        sql += text if expr is None else marker
        if expr is not None:
            params.append(expr)
    # A quoted placeholder ('%s') would be a literal string to the driver: drop the quotes.
    sql = sql.replace(f"'{marker}'", marker).replace(f'"{marker}"', marker)
    values = ast.Tuple(elts=params, ctx=ast.Load())
    new = ast.Call(func=call.func, args=[ast.Constant(sql), values], keywords=[])
    return indent + ast.unparse(new)


def _query_parts(node: ast.expr) -> list[tuple[str, ast.expr | None]] | None:
    """The literal text and the interpolated values of a formatted query, or None."""
    if isinstance(node, ast.JoinedStr):
        parts: list[tuple[str, ast.expr | None]] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append((value.value, None))
            elif isinstance(value, ast.FormattedValue) and value.format_spec is None:
                parts.append(("", value.value))
            else:
                return None
        return parts if any(e is not None for _, e in parts) else None
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and "%s" in node.left.value
        and "%%" not in node.left.value
    ):
        values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        pieces = node.left.value.split("%s")
        if len(pieces) != len(values) + 1 or any("%" in p for p in pieces):
            return None
        out: list[tuple[str, ast.expr | None]] = []
        for piece, value in zip(pieces[:-1], values, strict=True):
            out += [(piece, None), ("", value)]
        return [*out, (pieces[-1], None)]
    return None


def _env_secret(line: str) -> str | None:
    """``NAME = "literal"`` → ``NAME = os.environ["NAME"]`` (the file needs ``import os``)."""
    match = re.fullmatch(r"(\s*)([A-Za-z_]\w*)(\s*(?::\s*str\s*)?=\s*)[rbu]?(['\"]).*\4\s*", line)
    if match is None:
        return None
    indent, name, assign = match.group(1), match.group(2), match.group(3)
    return f'{indent}{name}{assign}os.environ["{name.upper()}"]'


def _flip(match: re.Match[str]) -> str:
    """The insecure literal of a boolean setting turned into the safe one."""
    safe = "False" if match.group(2) == "True" else "True"
    return match.group(1) + safe + match.group(3)


def _is_none(match: re.Match[str]) -> str:
    return " is not None" if match.group(1) == "!" else " is None"


_REWRITES: dict[tuple[str, str], Rewrite] = {
    ("bandit", "B113"): _add_keyword(
        r"\brequests\.(?:get|post|put|patch|delete|head|options|request)\(",
        f"timeout={_TIMEOUT_SECONDS}",
    ),
    ("bandit", "B506"): _sub(r"\byaml\.load\(([^(),]+?)(?:,\s*Loader\s*=\s*[\w.]+)?\)",
                             r"yaml.safe_load(\1)"),  # fmt: skip
    ("bandit", "B501"): _sub(r"\bverify\s*=\s*False\b", "verify=True"),
    ("bandit", "B201"): _sub(r"\bdebug\s*=\s*True\b", "debug=False"),
    ("bandit", "B324"): _sub(r"\bhashlib\.(?:md5|sha1)\(", "hashlib.sha256("),
    ("bandit", "B104"): _sub(r"(['\"])0\.0\.0\.0\1", r"\g<1>127.0.0.1\g<1>"),
    ("bandit", "B103"): _sub(r"\b0o?[0-7]*7[0-7]\b", "0o600"),
    ("bandit", "B307"): _sub(r"(?<![\w.])eval\(", "ast.literal_eval("),
    ("bandit", "B311"): _sub(r"\brandom\.(choice|randbelow)\(", r"secrets.\1("),
    ("bandit", "B323"): _sub(r"\bssl\._create_unverified_context\(", "ssl.create_default_context("),
    ("bandit", "B507"): _sub(r"\bparamiko\.(?:AutoAddPolicy|WarningPolicy)\(",
                             "paramiko.RejectPolicy("),
    ("bandit", "B701"): _sub(r"\bautoescape\s*=\s*False\b", "autoescape=True"),
    ("bandit", "B608"): _parameterise,
    ("bandit", "B105"): _env_secret,
    ("detect-secrets", "Secret Keyword"): _env_secret,
    ("detect-secrets", "AWS Access Key"): _env_secret,
    # Starting only where a run of spaces starts keeps a long run from being read once per
    # space (quadratic); the match is the same leftmost one.
    ("ruff", "E711"): _sub(r"(?<!\s)\s*([!=])= None\b", _is_none),
    ("ruff", "E722"): _sub(r"\bexcept\s*:", "except Exception:"),
    ("ruff", "F401"): _remove_import,
    ("python-settings", "insecure-setting"): _sub(r"(=\s*)(True|False)(\s*)$", _flip),
    ("semgrep", "js-insecure-config-tls"): _sub(r"rejectUnauthorized\s*:\s*false",
                                                "rejectUnauthorized: true"),
    ("semgrep", "go-insecure-config-tls"): _sub(r"InsecureSkipVerify\s*:\s*true",
                                                "InsecureSkipVerify: false"),
    ("semgrep", "js-weak-crypto-hash"): _sub(r"createHash\((['\"])(?:md5|sha1)\1\)",
                                             r"createHash(\1sha256\1)"),
}  # fmt: skip

# What a rewrite needs that the one replaced line cannot add.
NEEDS: dict[tuple[str, str], str] = {
    ("bandit", "B307"): "import ast",
    ("bandit", "B311"): "import secrets",
    ("bandit", "B105"): "import os",
    ("detect-secrets", "Secret Keyword"): "import os",
    ("detect-secrets", "AWS Access Key"): "import os",
}


def rewrite(tool: str, rule: str, line: str) -> str | None:
    """The line rewritten so ``rule`` of ``tool`` no longer fires, or None if not certain.

    The rewrite is as long as the line, give or take a few characters, so a very long line
    gives a fix longer than a finding may hold: ``mapping.hit_finding`` then leaves it out
    and says so, rather than fail the finding (tests feed every rewrite the longest line a
    review accepts)."""
    fixer = _REWRITES.get((tool, rule))
    if fixer is None:
        return None
    new = fixer(line.rstrip("\n"))
    return None if new is None or new == line.rstrip("\n") else new


def rewritable() -> tuple[tuple[str, str], ...]:
    """Every ``(tool, rule)`` with a deterministic rewrite."""
    return tuple(_REWRITES)
