"""The facts records of the memory-width, async-copy and spill analyses, apart from the
analyses that make them (as records.py holds eight others'; records_compute.py three more).

A warm run unpickles each kernel's Inspection and runs no analysis: unpickling a record imports
the module that defines it, and the report layer imports the records to read them. Here that
is this light module, not the analyses with their helpers (memory.py's indexes, the width
hints). Each analysis imports its record from here and documents its facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, TypedDict

from sassview.analyses.facts import Facts


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
