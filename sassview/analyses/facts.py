"""The base of an analysis' typed facts: a frozen dataclass whose fields are the facts.

Views read attributes (`insp.typed_facts(MemoryFacts).max_global_load_bits`), so renaming a
fact is a type error in every reader, not a KeyError found by a test. It is also a read-only
mapping by field name, in field order: the JSON writers, tests and users that index
`insp.facts("memory")["max_global_load_bits"]` see the same keys and values as before.

A fact that was a list of dicts is a list of `Record`s (a warp role, an occupancy point): the
same mapping behaviour one level down. `plain` turns a record, nested ones included, back into
the dicts and lists `json.dumps` writes, in field order.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar

from sassview.analyses.spins import SPIN_KINDS


class Record(Mapping[str, Any]):
    """Subclass as `@dataclass(frozen=True, slots=True, eq=False)`. eq=False keeps the
    mapping's equality: a record equals a dict of the same items, as it did when it was one.

    `_hidden` names the fields that are no fact of this result (occupancy's points on an
    architecture with no table): left out of the mapping, so of the JSON, and read as their
    default."""

    __slots__ = ()

    def _hidden(self) -> frozenset[str]:
        return frozenset()

    def _names(self) -> tuple[str, ...]:
        hidden = self._hidden()
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        return tuple(f.name for f in fields if f.name not in hidden)

    def __getitem__(self, key: str) -> Any:
        if key in self._names():
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


class Row(NamedTuple):
    """One row of `sassview check` under a kernel: `name` in the left column ("" continues the
    row above), `text` beside it."""

    name: str
    text: str


# A loop no loop statement explains, where it is named (loops/entry.py's `place`); several
# at one place are numbered as main and remainder loops are (`asm/compiler loop 2 of 5`). A
# retry loop ptxas made of one PTX instruction is named by what it retries instead
# (`setmaxnreg retry loop 2 of 5`: analyses/spins.py).
NO_STATEMENT = "asm/compiler loop"
_UNEXPLAINED = (NO_STATEMENT, *(f"{kind} loop" for kind in SPIN_KINDS))
_NUMBERED = re.compile("(" + "|".join(map(re.escape, _UNEXPLAINED)) + r") \d+ of \d+")


def once_each(texts: Iterable[str]) -> list[str]:
    """Each text once, in first-seen order, with how many rows said it: a Hopper kernel's ten
    inline-asm wait loops are one schedule row and one loop clause, not ten identical ones.
    Loops that differ only by their number (`asm/compiler loop 1 of 5` .. `5 of 5`) are alike:
    said once, unnumbered, with their count; one alone keeps its number."""
    said = list(texts)
    seen = Counter(_NUMBERED.sub(r"\1", text) for text in said)
    out: dict[str, None] = {}
    for text in said:
        alike = _NUMBERED.sub(r"\1", text)
        n = seen[alike]
        out[text if n == 1 else f"{alike} (x{n} loops alike)"] = None
    return list(out)


class Pair(NamedTuple):
    """One `name value` pair of the TUI header; `emphasis` says how loud: "" (plain),
    "strong" (a fact worth seeing) or "alert" (something that costs speed)."""

    name: str
    value: str
    emphasis: str = ""


_R = TypeVar("_R", bound="Facts")


class Finding(Protocol):
    """What a summary reads of an `Annotation` (analyses/base.py, which imports this module)."""

    @property
    def kind(self) -> str: ...

    @property
    def message(self) -> str: ...


class Results(Protocol):
    """What a record reads of one kernel's other results when it gives its summary: an
    `Inspection` (sassview/inspection.py) is one; the records cannot import it (it is above)."""

    @property
    def annotations(self) -> tuple[Finding, ...]: ...

    def typed_facts(self, kind: type[_R]) -> _R: ...

    def loop_place(self, sass_loop: int) -> str | None: ...


class Facts(Record):
    """One analysis' facts: set ANALYSIS to its registry name (sassview/analyses/__init__.py).

    A record also says what the views show of it, so a view loops over the registry and never
    names an analysis: `summary` gives its keys of a kernel's `analysis` in `check --json`
    (docs/json.md; report/summary.py orders them by its typed keys, a key it does not know
    after them), `check_rows` its rows in `check`, read from those keys alone (so the text and
    the JSON cannot disagree), `header` its pairs in the TUI header. Each gives none unless
    the record says."""

    __slots__ = ()
    ANALYSIS: ClassVar[str]

    def summary(self, results: Results) -> dict[str, Any]:
        """This analysis' keys of the kernel's `analysis` (`results`: the kernel's others)."""
        return {}

    def named(self, found: Iterable[Finding], site: Callable[[int], str]) -> list[str]:
        """The messages of this analysis' findings (`found`, in order) with the SASS loops they
        name by index worded as the loop census places them (`site(loop)`: `line 9 (h.cuh,
        inlined at line 20)`, its `LoopEntry.site`); the inspection asks once the census has
        run (an analysis runs without the others' results). As they are unless the record
        says."""
        return [a.message for a in found]

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        """This analysis' rows in `check`, from the kernel's `analysis` (every record's keys)."""
        return []

    def header(self, analysis: Mapping[str, Any]) -> list[Pair]:
        """This analysis' pairs in the TUI header, from its facts and the kernel's `analysis`."""
        return []


def plain(value: Any) -> Any:
    """`value` with every record in it as a dict (its keys in field order), lists and dicts
    rebuilt around them: what `json.dumps` can write. Other values are returned as they are."""
    if isinstance(value, Record):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
