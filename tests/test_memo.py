"""The one memo type (sassview/memo.py): its bound and eviction rule, forget_all() over every
registered table, and that no module keeps a memo table of its own beside it."""

from __future__ import annotations

import ast
from pathlib import Path

from sassview import memo
from sassview.memo import Memo, forget_all, memoized

PACKAGE = Path(memo.__file__).parent
LISTING = Path(__file__).parent / "data" / "graph" / "loops.sm_90a.sass.txt"


def test_a_full_memo_forgets_its_older_half_and_keeps_the_newest() -> None:
    table: Memo[int, str] = Memo("tests.test_memo.bound", 8)
    for i in range(20):
        table[i] = str(i)
        assert len(table) <= 8
    assert list(table) == list(range(12, 20))  # storing 16 found it full: 8-11 went
    table[19] = "again"  # storing a key already there forgets nothing
    assert list(table) == list(range(12, 20)) and table[19] == "again"


def test_a_memoized_function_is_called_once_per_argument_until_forgotten() -> None:
    calls: list[int] = []

    @memoized(4)
    def square(n: int) -> int:
        calls.append(n)
        return n * n

    assert [square(3), square(3), square(4)] == [9, 9, 16]
    assert calls == [3, 4]
    assert square.memo in memo.memos()  # type: ignore[attr-defined]
    forget_all()
    assert square(3) == 9 and calls == [3, 4, 3]


def test_forget_all_empties_every_table_a_parse_and_an_analysis_filled() -> None:
    from sassview.graph.dataflow import instruction_effects
    from sassview.parse.sass_text import parse_sass_text

    def read() -> list[object]:
        listing = parse_sass_text(LISTING.read_text(), where="sm_90a")
        return [instruction_effects(f.instructions) for f in listing.functions]

    first = read()
    filled = {t.name for t in memo.memos() if t}
    assert {
        "sassview.parse.sass._templates",
        "sassview.parse.sass_operands._cache",
        "sassview.graph.dataflow._effects_cache",
    } <= filled
    forget_all()
    assert not any(memo.memos())
    assert read() == first  # a memo only saves work


def _own_memos(path: Path) -> list[str]:
    """Module-level tables that start empty, and functools caches, in one module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            v = node.value
            empty = (isinstance(v, ast.Dict) and not v.keys) or (
                isinstance(v, ast.Call)
                and ast.unparse(v.func) == "dict"
                and not v.args
                and not v.keywords
            )
            state = (
                "# state, not a memo"
                in path.read_text(encoding="utf-8").splitlines()[node.lineno - 1]
            )  # a registry or a record of what happened, which forget_all must not empty
            if empty and not state:
                found.append(f"{path.name}:{node.lineno} {ast.unparse(v)}")
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for d in fn.decorator_list:
                name = ast.unparse(d.func if isinstance(d, ast.Call) else d)
                if name.split(".")[-1] in ("lru_cache", "cache"):
                    found.append(f"{path.name}:{fn.lineno} @{name} {fn.name}")
    return found


def test_no_module_keeps_a_memo_table_of_its_own() -> None:
    own = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "memo.py"
        for hit in _own_memos(path)
    ]
    assert own == [], "use sassview.memo.Memo / memoized, so forget_all() reaches it"
