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

from code_guard.knowledge.records import RuleRecord
from code_guard.rewrites.python_parse import parse_python

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


# Every rewrite, by the name a rule's record gives in ``rewrite:``.
REWRITES: dict[str, Rewrite] = {
    "requests-timeout": _add_keyword(
        r"\brequests\.(?:get|post|put|patch|delete|head|options|request)\(",
        f"timeout={_TIMEOUT_SECONDS}",
    ),
    "yaml-safe-load": _sub(r"\byaml\.load\(([^(),]+?)(?:,\s*Loader\s*=\s*[\w.]+)?\)",
                           r"yaml.safe_load(\1)"),
    "verify-certificates": _sub(r"\bverify\s*=\s*False\b", "verify=True"),
    "flask-debug-off": _sub(r"\bdebug\s*=\s*True\b", "debug=False"),
    "hashlib-sha256": _sub(r"\bhashlib\.(?:md5|sha1)\(", "hashlib.sha256("),
    "bind-localhost": _sub(r"(['\"])0\.0\.0\.0\1", r"\g<1>127.0.0.1\g<1>"),
    "owner-only-mode": _sub(r"\b0o?[0-7]*7[0-7]\b", "0o600"),
    "literal-eval": _sub(r"(?<![\w.])eval\(", "ast.literal_eval("),
    "secrets-choice": _sub(r"\brandom\.(choice|randbelow)\(", r"secrets.\1("),
    "default-ssl-context": _sub(r"\bssl\._create_unverified_context\(",
                                "ssl.create_default_context("),
    "reject-unknown-host-keys": _sub(r"\bparamiko\.(?:AutoAddPolicy|WarningPolicy)\(",
                                     "paramiko.RejectPolicy("),
    "jinja-autoescape": _sub(r"\bautoescape\s*=\s*False\b", "autoescape=True"),
    "parameterised-query": _parameterise,
    "secret-from-environment": _env_secret,
    # Starting only where a run of spaces starts keeps a long run from being read once per
    # space (quadratic); the match is the same leftmost one.
    "is-none": _sub(r"(?<!\s)\s*([!=])= None\b", _is_none),
    "except-exception": _sub(r"\bexcept\s*:", "except Exception:"),
    "remove-import": _remove_import,
    "flip-setting": _sub(r"(=\s*)(True|False)(\s*)$", _flip),
    "js-reject-unauthorized": _sub(r"rejectUnauthorized\s*:\s*false",
                                   "rejectUnauthorized: true"),
    "go-verify-tls": _sub(r"InsecureSkipVerify\s*:\s*true", "InsecureSkipVerify: false"),
    "js-sha256": _sub(r"createHash\((['\"])(?:md5|sha1)\1\)", r"createHash(\1sha256\1)"),
}  # fmt: skip

# What a rewrite needs that the one replaced line cannot add, by the rewrite's name.
NEEDS: dict[str, str] = {
    "literal-eval": "import ast",
    "secrets-choice": "import secrets",
    "secret-from-environment": "import os",
}


def rewrite(record: RuleRecord | None, line: str) -> str | None:
    """The line rewritten so the rule of ``record`` no longer fires, or None if not certain.

    The rewrite is as long as the line, give or take a few characters, so a very long line
    gives a fix longer than a finding may hold: ``agents.filtering.hit_finding`` then leaves
    it out and says so, rather than fail the finding (tests feed every rewrite the longest
    line a review accepts)."""
    if record is None or record.rewrite is None:
        return None
    new = REWRITES[record.rewrite](line.rstrip("\n"))
    return None if new is None or new == line.rstrip("\n") else new


def needs(record: RuleRecord | None) -> str | None:
    """What the file needs for the rewrite of ``record``'s rule (``import os``), if anything."""
    return NEEDS.get(record.rewrite) if record is not None and record.rewrite else None
