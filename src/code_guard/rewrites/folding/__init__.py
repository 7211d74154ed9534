"""Constant folding over a function's own constants: the branches that cannot run and the
container elements that are known literals.

A taint engine that joins every branch reports ``bar = "x" if 7 * 18 + num > 200 else param``
as tainted, though ``num = 106`` makes the condition always true, and reports
``values.append("x"); values.append(param); bar = values[0]`` as tainted, though element 0 is
the literal. Both CodeQL and Semgrep propagate constants; this module does the same, small and
conservative, so that the analysers see only code that can run:

- values are tracked per function, statement by statement, for names the function assigns:
  literals, arithmetic, comparisons, ``and``/``or``/``not`` and conditional expressions over
  them, f-strings and a few pure string calls over literals (their value unknown but built
  from literals only), and lists and dicts the function builds itself with literal indices
  and keys (``append``, ``insert``, ``pop``, ``x[k] = v``, ``x[k]``, ``x.get(k)``);
- an ``if`` or conditional expression whose test folds to a constant has a dead branch;
  an ``and``/``or`` decided by its left operand has a dead right one;
- anything else forgets what it touches: a name assigned in a loop, a ``try``, a ``with``
  (its manager may swallow what the body raises), a ``match``; a container read anywhere but
  in the forms above (it may be aliased or changed there).

The pull request's author writes the code folded, so a branch is pruned only on proof
(``_untracked``): a name is followed only when every binding of it in its scope is a plain
``=``, annotated or augmented assignment; any other form (a walrus, an import, a ``def`` or
``class``, a loop, ``with`` or ``except`` target, an unpacking, ``del``, a ``match`` capture,
``global``/``nonlocal``, a mention in a nested scope) leaves it unknown, and so does the whole
scope where a namespace may be written another way (``globals()``, ``setattr``, ``exec``, a
star import, ``sys.modules``, a frame's ``f_locals``, ``locals()`` in a function). At module
level, any statement that may run code written elsewhere (a call, an import, a decorator, a
class body, an attribute, operator or truth test of a value not built from literals) forgets
every name first (``_Scope._inert``). ``is`` folds only against None, True or False; a
repeated dict key keeps its last value; a call counts as pure only when the file does not
rebind its name.

``Folding.of(tree)`` gives the dead code, the element reads that fold to a literal, and the
calls whose first argument is built from literals only. ``pruned_source`` rewrites a source
for an analyser that reads text (Semgrep), with every line and column kept; ``pruned_tree``
does the same to a tree (our own taint check).

The package, by what each part does: ``values`` (the abstract values), ``bindings`` (which
scopes and names may fold), ``interpreter`` (the abstract run, ``Folding``), ``pruning``
(the rewritten source or tree) and ``fstrings`` (masking for an older parser).
"""

from code_guard.rewrites.folding.interpreter import Folding, folded, folding_of
from code_guard.rewrites.folding.pruning import pruned_source, pruned_tree
from code_guard.rewrites.folding.values import STATIC, TOP, Env, Val

__all__ = [
    "STATIC",
    "TOP",
    "Env",
    "Folding",
    "Val",
    "folded",
    "folding_of",
    "pruned_source",
    "pruned_tree",
]
