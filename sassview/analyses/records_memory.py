"""The facts records of the memory-width, async-copy and spill analyses, apart from the
analyses that make them (as records.py holds eight others'; records_compute.py three more).

A warm run unpickles each kernel's Inspection and runs no analysis: unpickling a record imports
the module that defines it, and the report layer imports the records to read them. Here that
is this light module, not the analyses with their helpers (memory.py's indexes, the width
hints). Each analysis imports its record from here and documents its facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypedDict

from sassview.analyses.facts import Facts, Pair, Results, Row


# memory_width.py: how many bits each access moves per thread
class AccessWidth(TypedDict):
    """One memory instruction's width (the `accesses` of the facts)."""

    address: int
    opcode: str  # the SASS mnemonic, LDG.E.128
    space: str  # global, shared, local, constant, generic
    direction: str  # load, store, atomic
    bits: int | str  # per thread; "bulk" for TMA and bulk copies
    source_line: int | None  # the user's line
    ptx: str | None  # the PTX mnemonic it came from


@dataclass(frozen=True, slots=True, eq=False)
class MemoryFacts(Facts):
    """The widest access per space and direction (bits per thread; None: no such access)."""

    ANALYSIS: ClassVar[str] = "memory"
    max_global_load_bits: int | None
    max_global_store_bits: int | None
    max_shared_load_bits: int | None
    max_shared_store_bits: int | None
    # TMA and bulk copies move a tile, not a width per thread: counted apart.
    bulk_global_loads: int
    bulk_global_stores: int
    accesses: list[AccessWidth]  # one per access, in address order
    by_line: dict[str, dict[str, dict[str, int]]]  # source line -> kind -> {bits: count}

    def summary(self, results: Results) -> dict[str, Any]:
        return {k: self[k] for k in _WIDEST}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        return [Row("widest access", widest_access(analysis))]

    def header(self, analysis: Mapping[str, Any]) -> list[Pair]:
        return [Pair("widest", widest_access(analysis, short=True))]


_WIDEST = (
    *("max_global_load_bits", "bulk_global_loads", "bulk_global_stores", "max_global_store_bits"),
    *("max_shared_load_bits", "max_shared_store_bits"),
)


def _bits(n: int | None, bulk: int | None = 0, short: bool = False) -> str:
    """An access width; with `bulk`, the TMA / bulk copies beside (they have no width)."""
    text = "-" if n is None else str(n) if short else f"{n}-bit"
    if bulk:
        copies = "bulk" if short else "bulk copies"
        text = copies if n is None else f"{text}+bulk" if short else f"{text} (+ bulk copies)"
    return text


def widest_access(a: Mapping[str, Any], *, short: bool = False) -> str:
    """`global load 128-bit, store 32-bit; shared load -, store -` from a kernel summary's
    analysis: `check`'s row and, `short`, the TUI header's `global ld 128 st 32 · shared ld -
    st -` (bulk copies, which have no width, named in both)."""
    g_ld = _bits(a["max_global_load_bits"], a.get("bulk_global_loads"), short)
    g_st = _bits(a["max_global_store_bits"], a.get("bulk_global_stores"), short)
    s_ld, s_st = (_bits(a[k], 0, short) for k in ("max_shared_load_bits", "max_shared_store_bits"))
    if short:
        return f"global ld {g_ld} st {g_st} · shared ld {s_ld} st {s_st}"
    return f"global load {g_ld}, store {g_st}; shared load {s_ld}, store {s_st}"


# async_copy.py: cp.async, TMA, bulk copies, mbarriers and barriers
class ScoreboardWait(TypedDict):
    """One `DEPBAR.LE SB0, n` (the `cp_async_waits`, `bulk_waits` and `other_waits`)."""

    address: int
    scoreboard: str | None  # SB0, ...
    pending: int | None  # the n of .LE: groups still allowed in flight
    kind: str  # "cp.async", "bulk" or "other": which copies it waits for
    ptx: str | None  # the PTX mnemonic it came from


class Barrier(TypedDict):
    """One block, named or cluster barrier (BAR, UCGABAR_ARV, UCGABAR_WAIT)."""

    address: int
    id: int | None  # None: a cluster barrier, or an id held in a register
    kind: str  # sync, arrive, reduce, other, cluster-arrive, cluster-wait
    threads: int | None


# What an mbarrier instruction does (_mbarrier_kind): each is a key of MbarrierOps.
MbarrierKind = Literal[
    "init", "arrive", "arrive_expect_tx", "expect_tx", "complete_tx", "try_wait",
    "try_wait_retry", "test_wait", "inval", "other",
]  # fmt: skip


class MbarrierOps(TypedDict, total=False):
    """mbarrier operations of the SASS by kind (only the kinds found, in the order found),
    and `by_mnemonic`: the same instructions by SASS mnemonic (always there)."""

    init: int
    arrive: int
    arrive_expect_tx: int
    expect_tx: int
    complete_tx: int
    try_wait: int
    try_wait_retry: int
    test_wait: int
    inval: int
    other: int
    by_mnemonic: dict[str, int]


@dataclass(frozen=True, slots=True, eq=False)
class AsyncCopyFacts(Facts):
    """Asynchronous copies (cp.async, TMA, bulk), their waits, mbarriers and block barriers."""

    ANALYSIS: ClassVar[str] = "async_copy"
    cp_async: int
    cp_async_bits: dict[str, int]  # access width ("128") -> cp.async count
    cp_async_groups: int
    cp_async_waits: list[ScoreboardWait]
    cp_async_arrives: int
    tma: dict[str, int]  # loads, stores, reductions, ... -> count
    bulk_copies: int
    bulk: dict[str, int]
    bulk_waits: list[ScoreboardWait]
    other_waits: list[ScoreboardWait]
    mbarrier_ops: MbarrierOps
    ptx_mbarrier_ops: dict[str, int]
    barriers: list[Barrier]
    warp_syncs: int
    nanosleeps: int
    ldmatrix: int
    stmatrix: int

    def summary(self, results: Results) -> dict[str, Any]:
        return {"cp_async": self.cp_async, "tma": self.tma}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        cp_async, tma = analysis["cp_async"], analysis["tma"]
        if not (cp_async or tma["loads"] or tma["stores"]):
            return []
        text = f"cp.async {cp_async}, TMA loads {tma['loads']}, stores {tma['stores']}"
        return [Row("async copies", text)]


# spills.py: register spills and local arrays
class SpillLine(TypedDict):
    """The spills of one source line (`by_line`), bytes per thread."""

    stores: int
    loads: int
    store_bytes: int
    load_bytes: int
    by_width: dict[str, int]  # access width ("128") -> instructions


class LocalArrayLine(TypedDict):
    """The local-array accesses of one source line (`local_array_by_line`)."""

    loads: int
    stores: int
    bytes: int  # moved per thread, loads and stores together


@dataclass(frozen=True, slots=True, eq=False)
class SpillFacts(Facts):
    """Register spills and local arrays: counts, bytes per thread, and the lines they are on."""

    ANALYSIS: ClassVar[str] = "spills"
    spills: bool
    spill_store_bytes: int | None  # from the ptxas report; None when there was none
    spill_load_bytes: int | None
    spill_instructions: int
    spill_stores: int
    spill_loads: int
    local_array_instructions: int
    local_bytes: int
    stack_frame_bytes: int
    registers: int
    register_limit: int | None
    classified_by: str  # "nvdisasm", "ptxas-report" or "heuristic"
    by_line: dict[str, SpillLine]  # source line key -> its spills
    local_array_by_line: dict[str, LocalArrayLine]

    def summary(self, results: Results) -> dict[str, Any]:
        return {
            "spills": bool(self.spills),
            "spill_store_bytes": self.spill_store_bytes,
            "spill_load_bytes": self.spill_load_bytes,
            "spill_instructions": self.spill_instructions,  # marked SpillRefill (or the guess)
            "local_bytes": self.local_bytes,
        }
