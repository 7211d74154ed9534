"""The abstract values of constant folding: a literal, a value built from literals only, or
unknown; how two join, and which calls and operators keep a value literal.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

# Bounds on folded values: a constant condition never needs more, and a crafted file must not
# make the reviewer build a huge string or number.
_MAX_INT = 10**12
_MAX_STR = 10_000

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_NESTED = (*_SCOPES, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Kind:
    CONST = "const"  # a known literal value
    STATIC = "static"  # built from literals only, value unknown
    LIST = "list"  # a list the function built, element by element
    DICT = "dict"  # a dict the function built, literal key by literal key
    TOP = "top"  # anything


@dataclass(frozen=True)
class Val:
    """An abstract value."""

    kind: str
    value: Any = None  # CONST: the value; LIST: tuple of Val; DICT: tuple of (key, Val)

    @property
    def static(self) -> bool:
        """Built from literals only."""
        return self.kind in (_Kind.CONST, _Kind.STATIC)


TOP = Val(_Kind.TOP)
STATIC = Val(_Kind.STATIC)


def _const(value: object) -> Val:
    if isinstance(value, bool | type(None) | float):
        return Val(_Kind.CONST, value)
    if isinstance(value, int) and abs(value) <= _MAX_INT:
        return Val(_Kind.CONST, value)
    if isinstance(value, str | bytes) and len(value) <= _MAX_STR:
        return Val(_Kind.CONST, value)
    return STATIC


def _join(a: Val, b: Val) -> Val:
    if a == b:
        return a
    if a.static and b.static:
        return STATIC
    if a.kind == b.kind == _Kind.LIST and len(a.value) == len(b.value):
        return Val(_Kind.LIST, tuple(_join(x, y) for x, y in zip(a.value, b.value, strict=True)))
    if a.kind == b.kind == _Kind.DICT and [k for k, _ in a.value] == [k for k, _ in b.value]:
        joined = tuple((k, _join(x, y)) for (k, x), (_, y) in zip(a.value, b.value, strict=True))
        return Val(_Kind.DICT, joined)
    return TOP


Env = dict[str, Val]


def _join_envs(envs: Sequence[Env]) -> Env:
    if not envs:
        return {}
    names = set(envs[0]).intersection(*envs[1:])
    out: Env = {}
    for name in names:
        value = envs[0][name]
        for env in envs[1:]:
            value = _join(value, env[name])
        out[name] = value
    return out


_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
# Calls whose result is built from their arguments alone: literals in, literal-built out.
_PURE_CALLS = frozenset({"str", "int", "float", "bool", "len", "repr", "bytes"})
_PURE_MODULES = ("base64.", "urllib.parse.", "html.", "string.")
_PURE_METHODS = frozenset(
    {
        "lower", "upper", "strip", "lstrip", "rstrip", "replace", "format", "join", "encode",
        "decode", "title", "capitalize", "casefold", "removeprefix", "removesuffix", "zfill",
    }
)  # fmt: skip
# ``encode`` and ``decode`` run a codec and an error handler looked up by name, and code may
# register its own (``codecs.register``): only those Python builds in stay pure.
_CODEC_METHODS = frozenset({"encode", "decode"})
_BUILTIN_CODECS = frozenset(
    {"utf-8", "utf8", "ascii", "latin-1", "latin1", "iso-8859-1", "strict", "ignore", "replace"}
)
_LIST_MUTATORS = frozenset({"append", "insert", "pop", "extend", "clear"})


def _decided(ops: Sequence[ast.cmpop], values: Sequence[Val]) -> bool:
    """Whether Python itself fixes each answer of a chain of comparisons of literals. An
    ``is`` is fixed only against None, True or False, the singletons; any other identity is
    the interpreter's choice (``"ab" * 2 is "abab"`` is true compiled, false computed)."""
    return all(
        not isinstance(op, ast.Is | ast.IsNot) or _singleton(a) or _singleton(b)
        for op, a, b in zip(ops, values, values[1:], strict=False)
    )


def _singleton(value: Val) -> bool:
    return value.value is None or type(value.value) is bool


def _builtin_codec(call: ast.Call) -> bool:
    """Whether each argument of ``call`` (an ``encode`` or ``decode``) names a built-in codec
    or error handler, as a literal."""
    values = [*call.args, *(k.value for k in call.keywords)]
    return all(
        isinstance(v, ast.Constant) and isinstance(v.value, str) and v.value in _BUILTIN_CODECS
        for v in values
    )


# ``"%0999999999d" % 1`` builds a gigabyte before its length can be checked: a ``%`` format
# with a width or precision this long is not folded.
_WIDE_FORMAT = re.compile(r"%[^%a-zA-Z]*\d{5,}")


def _fold_binop(op: ast.operator, left: Any, right: Any) -> Val:
    fn = _BINOPS.get(type(op))
    if fn is None:
        return STATIC
    for text, times in ((left, right), (right, left)):
        repeated = isinstance(text, str | bytes) and type(times) is int
        if repeated and len(text) * max(times, 0) > _MAX_STR:
            return STATIC
    if isinstance(op, ast.Mod) and isinstance(left, str | bytes):
        spec = left if isinstance(left, str) else left.decode("latin-1")
        if _WIDE_FORMAT.search(spec):
            return STATIC
    try:
        return _const(fn(left, right))
    except Exception:  # noqa: BLE001 - a type error or a division by zero: not folded
        return STATIC
