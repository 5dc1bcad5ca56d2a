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
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar


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


class Facts(Record):
    """One analysis' facts: set ANALYSIS to its registry name (sassview/analyses/__init__.py)."""

    __slots__ = ()
    ANALYSIS: ClassVar[str]


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
