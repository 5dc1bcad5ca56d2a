"""The base of an analysis' typed facts: a frozen dataclass whose fields are the facts.

Views read attributes (`insp.typed_facts(MemoryFacts).max_global_load_bits`), so renaming a
fact is a type error in every reader, not a KeyError found by a test. It is also a read-only
mapping by field name, in field order: the JSON writers, tests and users that index
`insp.facts("memory")["max_global_load_bits"]` see the same keys and values as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar


class Facts(Mapping[str, Any]):
    """Subclass as `@dataclass(frozen=True, slots=True, eq=False)` and set ANALYSIS to the
    registry name. eq=False keeps the mapping's equality: facts equal a dict of the same items,
    as they did when they were dicts."""

    __slots__ = ()
    ANALYSIS: ClassVar[str]

    def _names(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self))  # type: ignore[arg-type]

    def __getitem__(self, key: str) -> Any:
        if key in self._names():
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())
