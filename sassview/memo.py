"""One bounded memo type for every table that remembers work across calls: decoded instruction
forms, operands, line-table chains, register effects, address texts, source scans.

A `Memo` is a dict (a hit is dict.get, in C: the parsers ask 10^5 times per kernel) with a size
bound kept on insert: a store that finds it full first forgets the older half, in insertion
order. That rule costs nothing on a hit (an LRU would reorder on every hit) and keeps the
recent, still-repeating entries. Each memo registers itself where it is defined, with a name;
`forget_all()` empties every one, as in a new process (benchmarks and tests use it, nobody reaches
into another module's tables). Memos only ever save work: forgetting one never changes an answer.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable
from typing import ParamSpec, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")

_REGISTRY: dict[str, Memo[object, object]] = {}


class Memo(dict[K, V]):
    """A dict that holds at most `limit` entries; see the module's docstring for the rule."""

    def __init__(self, name: str, limit: int) -> None:
        super().__init__()
        if limit < 2:
            raise ValueError(f"memo {name}: limit {limit} < 2")
        self.name = name
        self.limit = limit
        _REGISTRY[name] = self  # type: ignore[assignment]  # a reloaded module's replaces its old one

    def __setitem__(self, key: K, value: V) -> None:
        if len(self) >= self.limit and key not in self:
            for old in list(itertools.islice(self, len(self) // 2)):
                del self[old]
        super().__setitem__(key, value)

    def __repr__(self) -> str:
        return f"<Memo {self.name}: {len(self)} of {self.limit}>"


def memoized(limit: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A function's results by its (hashable, positional) arguments, in a Memo named after it."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        table: Memo[Hashable, R] = Memo(f"{fn.__module__}.{fn.__qualname__}", limit)
        missing = object()

        @functools.wraps(fn)
        def cached(*args: P.args, **kwargs: P.kwargs) -> R:
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            found = table.get(key, missing)
            if found is missing:
                found = table[key] = fn(*args, **kwargs)
            return found  # type: ignore[return-value]

        cached.memo = table  # type: ignore[attr-defined]
        return cached

    return wrap


def memos() -> tuple[Memo[object, object], ...]:
    """Every memo defined so far (those of modules imported so far), in definition order."""
    return tuple(_REGISTRY.values())


def forget_all() -> None:
    """Empty every memo, as in a new process."""
    for table in _REGISTRY.values():
        table.clear()
