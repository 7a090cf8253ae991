"""No module asks what a level is by comparing its name with a spelling of its own.

`explorer/levels.py` holds the one table of levels; everywhere else a question about a level is asked
of that table (`level_named(level).optimized`), so a new level is a row there, not a hunt through
`level == "hlo"` in twenty files. The scan below finds a comparison (`==`, `!=`, `in`/`not in` a
literal tuple, list or set, a `match` case) of a level-ish expression with a string that is a
level's name, in explorer/, screens/ and sample_models/ outside explorer/levels.py.

A level-ish expression: a name or attribute whose identifier says level or mode (`level`,
`step.level`, `self.current_mode`), a name bound in the same function from one (`below =
NEXT_DOWN.get(level)`, `for key in wanted_levels(...)`, then `key[1]`), or a name compared there with
one (`level == other`: then `other` is a level too). A literal collection of two or more level
names, or the name `optimized-hlo`, counts whatever it is compared with. A word that is a level's
name and something else too (`bound == "memory"`, `language == "hlo"`, a tour's `fact == "kernels"`)
is left alone. A row's constant spelled in place of the literal (`level == HLO.name`, `row is KERNELS`)
is the same comparison and is found too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from explorer import levels
from explorer.levels import LEVELS, Level

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("explorer", "screens", "sample_models")
TABLE = ROOT / "explorer" / "levels.py"
_LEVEL_WORD = re.compile(r"level|mode", re.IGNORECASE)
_ONLY_A_LEVEL = {"optimized-hlo"}  # no other vocabulary of ours spells it
# The table's rows by their constants' names (`HLO`, `KERNELS`): `level == HLO.name` or `row is KERNELS`
# is the same comparison spelled another way.
_ROWS = {name for name, value in vars(levels).items() if isinstance(value, Level)}


def _strings(node: ast.AST) -> list[str]:
    """The string literals `node` is (a constant) or holds (a literal tuple, list or set)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _identifier(node: ast.AST) -> str:
    """The name an expression ends in: `level`, `step.level` -> level, `key[1]` -> key."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _mentions_level(node: ast.AST, known: set[str]) -> bool:
    return any(isinstance(n, (ast.Name, ast.Attribute)) and (_LEVEL_WORD.search(_identifier(n)) or
                                                             (isinstance(n, ast.Name) and n.id in known))
               for n in ast.walk(node))


def _level_names(scope: ast.AST, outer: set[str]) -> set[str]:
    """The plain names in `scope` that hold a level (see the module's docstring), to a fixed point;
    `outer`: those of the scope around it."""
    known = set(outer)
    while True:
        before = len(known)
        for node in ast.walk(scope):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                    and _mentions_level(node.value, known):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                known |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif isinstance(node, (ast.For, ast.comprehension)) and _mentions_level(node.iter, known):
                known |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            elif isinstance(node, ast.Compare) and len(node.ops) == 1 \
                    and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
                pair = (node.left, node.comparators[0])
                for this, that in (pair, pair[::-1]):
                    if isinstance(this, ast.Name) and not _strings(that) and _is_levelish(that, known):
                        known.add(this.id)
        if len(known) == before:
            return known


def _is_levelish(node: ast.AST, known: set[str]) -> bool:
    name = _identifier(node)
    return bool(name) and (bool(_LEVEL_WORD.search(name)) or name in known)


def _a_row(node: ast.AST) -> bool:
    """`HLO`, `HLO.name`, `levels.HLO.name`: one of the table's rows (or its name) by its constant."""
    if isinstance(node, ast.Attribute) and node.attr == "name":
        node = node.value
    return _identifier(node) in _ROWS


def _names_a_row(node: ast.AST) -> bool:
    return _a_row(node) or isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(map(_a_row, node.elts))


def _flags(subject: ast.AST, literal: ast.AST, known: set[str]) -> bool:
    if _names_a_row(literal) and not _names_a_row(subject):
        return True
    names = set(_strings(literal)) & set(LEVELS)
    if not names or _strings(subject):
        return False
    return _is_levelish(subject, known) or len(names) >= 2 or bool(names & _ONLY_A_LEVEL)


def level_name_comparisons(source: str, where: str = "<source>") -> list[str]:
    """`where:line: expression` for each comparison of a level with a literal level name."""
    tree = ast.parse(source)
    scopes: list[ast.AST] = [node for node in ast.walk(tree)
                             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    known_at: dict[int, set[str]] = {}
    for scope in [tree, *scopes]:  # outer scopes first (a breadth-first walk): an inner one adds to them
        known = _level_names(scope, known_at.get(id(scope), set()))
        for node in ast.walk(scope):
            known_at[id(node)] = known
    found = []
    for node in ast.walk(tree):
        known = known_at.get(id(node), set())
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for at, op in enumerate(node.ops):
                left, right = operands[at], operands[at + 1]
                if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) \
                        and (_flags(left, right, known) or _flags(right, left, known)) \
                        or isinstance(op, (ast.In, ast.NotIn)) and _flags(left, right, known):
                    found.append((node.lineno, f"{where}:{node.lineno}: {ast.unparse(node)}"))
                    break
        elif isinstance(node, ast.Match):
            for case in node.cases:
                for pattern in ast.walk(case.pattern):
                    if isinstance(pattern, ast.MatchValue) and _flags(node.subject, pattern.value, known):
                        case_text = f"match {ast.unparse(node.subject)}: case {ast.unparse(pattern.value)}"
                        found.append((pattern.lineno, f"{where}:{pattern.lineno}: {case_text}"))
    return [line for _, line in sorted(found)]


def test_no_module_compares_a_level_with_its_name():
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path != TABLE:
                found += level_name_comparisons(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, "ask explorer/levels.py (level_named(name).<property>) instead:\n" + "\n".join(found)


def test_the_scan_finds_each_way_a_level_is_compared_with_its_name():
    source = '''
def f(level, step, key, other, mode):
    a = level == "hlo"
    b = "kernels" != step.level
    c = level in ("hlo", "optimized-hlo")
    d = step.level not in ["graph"]
    e = self.current_mode == "graph"
    below = NEXT_DOWN.get(level)
    g = below == "kernels"
    for pair in wanted_levels(options):
        h = pair[1] != "layers"
    i = level == other or other == "layers"
    j = anything == "optimized-hlo"
    k = anything in {"layers", "memory"}
    match level:
        case "memory":
            pass
    m = level == HLO.name or KERNELS.name != name or name in (LAYERS.name, "x") or row is MEMORY
'''
    found = level_name_comparisons(source)
    assert [line.split(":")[1] for line in found] == \
        ["3", "4", "5", "6", "7", "9", "11", "12", "13", "14", "16", "18", "18", "18", "18"], found
    spelled = "a = x in [levels.GRAPH.name] or row is not GRAPH or HLO is HLO or x == 'HLO'\n"
    assert [line.split(": ", 1)[1] for line in level_name_comparisons(spelled)] == \
        ["row is not GRAPH", "x in [levels.GRAPH.name]"]


def test_the_scan_leaves_other_vocabularies_and_non_level_words_alone():
    source = '''
def f(bound, language, fact, level, dialect, family, kind):
    a = bound == "memory"
    b = language != "hlo"
    c = fact == "kernels"
    d = level == "cpu"
    e = (dialect, True) == ("hlo", True)
    g = family == "memory"
    h = bound in ("compute", "memory")
    i = kind == "graph"
    j = "layers" == "layers"
    match fact:
        case "kernels":
            pass
'''
    assert level_name_comparisons(source) == []
