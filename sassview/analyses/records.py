"""The facts records of eight analyses, apart from the analyses that make them, and the
memory-use line worded from two of them (`memory_use_text`). records_memory.py and
records_compute.py hold six more analyses' records, split by topic to keep each module small.

A warm run loads each kernel's Inspection from the cache and never runs an analysis; unpickling
a record imports the module that defines it, and the views import the records to read them.
Here, that is this one light module instead of eight analyses with their helpers (their imports
cost a warm `check` of vecadd ~10 ms of ~130 ms CPU: benchmarks/bench_warm.py). Each analysis
imports its record from here (coalescing's `CoalescingFacts`, ...) and documents its facts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar, TypedDict

from sassview.analyses.facts import Facts, Record


# coalescing.py: sectors per warp of each global access
class GlobalAccess(TypedDict):
    """One global access, one warp-wide execution (the `accesses` of the facts)."""

    address: int
    opcode: str
    direction: str  # load, store, atomic
    bits: int
    source_line: int | None
    in_loop: bool
    active_lanes: int
    sectors: int | None  # None when unknown
    min_sectors: int
    stride: int | None  # bytes between consecutive lanes, when one stride holds for all
    pattern: str | None  # the lanes' steps in words
    coalesced: bool | None  # sectors <= min_sectors; None when unknown
    assumption: str | None  # what the count rests on, beyond the address arithmetic
    unknown: str | None  # why the sectors are unknown


@dataclass(frozen=True, slots=True, eq=False)
class CoalescingFacts(Facts):
    """Every global access' sectors for one warp, and how many are coalesced."""

    ANALYSIS: ClassVar[str] = "coalescing"
    block: str  # the lanes the counts are for, in words
    accesses: list[GlobalAccess]
    coalesced: int
    uncoalesced: int
    unknown: int


# bank_conflicts.py: wavefronts per warp of each shared access
class SharedAccess(TypedDict):
    """One shared access, one warp-wide execution (the `accesses` of the facts)."""

    address: int
    opcode: str
    direction: str
    bits: int  # per lane (LDSM/STSM: 32 per matrix, as memory_width counts them)
    source_line: int | None
    in_loop: bool
    wavefronts: int | None  # None when unknown
    ideal: int  # the fewest wavefronts for this width
    ways: int | None  # the worst phase's n-way conflict (1: none)
    stride: int | None
    pattern: str | None
    unknown: str | None


@dataclass(frozen=True, slots=True, eq=False)
class BankFacts(Facts):
    """Every shared access' wavefronts for one warp, and how many conflict on banks."""

    ANALYSIS: ClassVar[str] = "bank_conflicts"
    block: str
    accesses: list[SharedAccess]
    conflicted: int
    unknown: int
    worst_ways: int  # the largest n-way conflict of any access (1 when none)


# The memory-use line: both analyses' counts in one sentence, worded once for `check`, the
# JSON's `memory_use.text`, the export and the TUI.
def memory_use_text(coalescing: CoalescingFacts, banks: BankFacts) -> str:
    """The one-line summary of both analyses' facts: 'global: 12 of 14 accesses coalesced;
    shared: 1 4-way conflict' (what `check` prints, and the JSON's `memory_use.text`)."""
    total = len(coalescing.accesses)
    text = "global: none" if not total else f"global: {coalescing.coalesced} of {total}"
    if total:
        text += f" access{'es' if total != 1 else ''} coalesced"
        if coalescing.unknown:
            text += f" ({coalescing.unknown} unknown)"
    shared = banks.accesses
    if not shared:
        return text + "; shared: none"
    ways: dict[int, int] = {}
    for a in shared:
        w = a["ways"]
        if w is not None and w > 1:
            ways[w] = ways.get(w, 0) + 1
    if ways:
        parts = [
            f"{n} {w}-way conflict{'s' if n != 1 else ''}"
            for w, n in sorted(ways.items(), reverse=True)
        ]
        text += "; shared: " + ", ".join(parts)
    else:
        known = len(shared) - banks.unknown
        of = f"{known} of " if banks.unknown else ""
        accesses = f"{len(shared)} access{'es' if len(shared) != 1 else ''}"
        if not known:  # "no conflicts in 2 accesses (2 unknown)" would claim what is unknown
            return text + f"; shared: {accesses}, all unknown"
        text += f"; shared: no conflicts in {of}{accesses}"
    if banks.unknown:
        text += f" ({banks.unknown} unknown)"
    return text


# occupancy.py
@dataclass(frozen=True, slots=True, eq=False)
class OccupancyPoint(Record):
    """One block size's occupancy, as the facts and the JSON give it (`Occupancy`, with the
    limits of unused resources as None)."""

    threads: int
    blocks: int
    warps: int
    percent: float
    limiters: list[str]
    limits: dict[str, int | None]  # blocks per SM each resource allows; None: not used
    shared_allocated: int
    carveout_kb: int | None
    registers_for_next_block: int | None
    shared_for_next_block: int | None


@dataclass(frozen=True, slots=True, eq=False)
class OccupancyFacts(Facts):
    """Blocks and warps per SM at the kernel's block size(s). On an architecture with no table
    (`known` False) the facts are `known`, `arch` and `block_source` (None) alone."""

    ANALYSIS: ClassVar[str] = "occupancy"
    known: bool
    arch: str
    block_source: str | None  # reqntid, launch, maxntid, num_warps or sweep (block_sizes)
    max_warps: int = 0
    shared_dynamic_known: bool = False
    points: list[OccupancyPoint] = dataclasses.field(default_factory=list)
    text: str = ""

    def _hidden(self) -> frozenset[str]:
        return frozenset() if self.known else _UNKNOWN_HIDDEN


_UNKNOWN_HIDDEN = frozenset({"max_warps", "shared_dynamic_known", "points", "text"})


# register_budget.py: setmaxnreg per warp group
@dataclass(frozen=True, slots=True, eq=False)
class Budget(Record):
    """One USETMAXREG: its target and the code that runs under it (a record of the facts)."""

    address: int
    line: int | None
    action: str  # "increase" | "decrease"
    registers: int  # per thread, from this instruction on
    peak_live: int  # the most registers live in the code under it (nvdisasm's '#')
    highest: int  # one past the highest R register that code names (R71 -> 72)


@dataclass(frozen=True, slots=True, eq=False)
class RegisterBudgetFacts(Facts):
    """setmaxnreg per warp group. A kernel without one has `budgets` ([]) and `text` (None)
    alone."""

    ANALYSIS: ClassVar[str] = "register_budget"
    launch_registers: int = 0
    threads: int | None = None  # the block size, when __launch_bounds__ / .reqntid give it
    pool: int | None = None  # the registers the launch gives one block
    warp_groups: int | None = None
    budgets: list[Budget] = dataclasses.field(default_factory=list)
    increase_groups_that_fit: list[int] | None = None  # None: no split was checked
    text: str | None = None  # the check row (describe)

    def _hidden(self) -> frozenset[str]:
        return frozenset() if self.budgets else _NONE_HIDDEN


_NONE_HIDDEN = frozenset(
    {"launch_registers", "threads", "pool", "warp_groups", "increase_groups_that_fit"}
)


# register_cap.py
@dataclass(frozen=True, slots=True, eq=False)
class RegisterCapFacts(Facts):
    """The register cap asked for, the launch bounds declared, and whether the cap applied."""

    ANALYSIS: ClassVar[str] = "register_cap"
    asked: int | None  # the -maxrregcount given, or None
    launch_bounds: str | None  # "__launch_bounds__(256)" as the kernel declares it, or None
    limit: int | None  # the register limit ptxas recorded (.nv.info MAXREG_COUNT)
    ignored: bool  # asked, and the kernel's launch bounds set its limit instead


# triton_strides.py
@dataclass(frozen=True, slots=True, eq=False)
class TritonStrideFacts(Facts):
    """The kernel arguments Triton left as run-time strides of a contiguous dimension."""

    ANALYSIS: ClassVar[str] = "triton_strides"
    runtime_strides: list[str]  # argument names, sorted


# warp_partitions.py: a warp-specialized Triton kernel's partitions
@dataclass(frozen=True, slots=True, eq=False)
class Partition(Record):
    """One partition the dispatch sends warps to, and the loops that run in it."""

    role: str  # mma, load, store, other; default for the warps that started the kernel
    entry: int | None  # the address the jump table sends it to; None for the default
    loops: list[int]  # loop indices of the kernel's own loops
    spins: dict[str, list[int]]  # what a retry loop waits on -> its loop indices


@dataclass(frozen=True, slots=True, eq=False)
class WarpPartitionFacts(Facts):
    """The partitions of a warp-specialized Triton kernel ([] for any other kernel)."""

    ANALYSIS: ClassVar[str] = "warp_partitions"
    partitions: list[Partition]


# warp_roles.py: a warp-specialised CuTe DSL kernel's roles
@dataclass(frozen=True, slots=True, eq=False)
class RoleWait(Record):
    """The wait loops of one kind at one line of a role."""

    kind: str  # "mbarrier" or "setmaxnreg" (wait_kind)
    line: int
    loops: int  # how many SASS loops wait there
    sass_loops: list[int]  # their loop indices


@dataclass(frozen=True, slots=True, eq=False)
class WarpRole(Record):
    """A role as the facts give it: the `Role` of the source, with its wait loops."""

    name: str
    condition: str
    first_line: int
    last_line: int
    setmaxnreg: int | None
    waits: list[RoleWait]  # by line, then kind


@dataclass(frozen=True, slots=True, eq=False)
class WarpRoleFacts(Facts):
    """The roles of a warp-specialised CuTe DSL kernel ([] for any other kernel)."""

    ANALYSIS: ClassVar[str] = "warp_roles"
    roles: list[WarpRole]
