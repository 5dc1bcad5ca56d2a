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
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

from sassview.analyses.facts import Facts, Finding, Record, Results, Row, plain


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

    def summary(self, results: Results) -> dict[str, Any]:
        """`memory_use`: coalescing and bank conflicts, their counts, their line, every access."""
        banks = results.typed_facts(BankFacts)
        use = {
            "text": memory_use_text(self, banks),
            "block": self.block,
            "global": {
                "coalesced": self.coalesced,
                "uncoalesced": self.uncoalesced,
                "unknown": self.unknown,
            },
            "shared": {
                "conflicted": banks.conflicted,
                "unknown": banks.unknown,
                "worst_ways": banks.worst_ways,
            },
            "global_accesses": list(self.accesses),
            "shared_accesses": list(banks.accesses),
        }
        return {"memory_use": use}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        use = analysis["memory_use"]
        first, *more = _fit([*use["text"].split("; "), f"assumes {use['block']}"])
        return [Row("memory use", first), *(Row("", line) for line in more)]


_ROW_TEXT = 80 - 17  # an 80-column terminal less the row's indent and name column


def _fit(parts: list[str]) -> list[str]:
    """Parts of a row ('global: ...', 'shared: ...', 'assumes ...') packed into lines that fit
    an 80-column terminal, joined by '; ' where two fit on one line, a long part wrapped at
    its words: every word is kept."""
    import textwrap

    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= _ROW_TEXT:
            lines[-1] += "; " + part
        else:
            lines.extend(textwrap.wrap(part, _ROW_TEXT, break_on_hyphens=False) or [part])
    return lines


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

    def summary(self, results: Results) -> dict[str, Any]:
        """Blocks and warps per SM at the kernel's block size(s); None where not known."""
        if not self.known:
            return {"occupancy": None}
        points = [
            {
                "threads": p.threads,
                "blocks": p.blocks,
                "warps": p.warps,
                "percent": p.percent,
                "limiters": p.limiters,
                "limits": p.limits,
                "carveout_kb": p.carveout_kb,
                "registers_for_next_block": p.registers_for_next_block,
                "shared_for_next_block": p.shared_for_next_block,
            }
            for p in self.points
        ]
        return {
            "occupancy": {
                "block_source": self.block_source,
                "max_warps": self.max_warps,
                "text": self.text,
                "points": points,
            }
        }

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        found = analysis.get("occupancy")
        return [Row("occupancy", found["text"])] if found else []


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

    def summary(self, results: Results) -> dict[str, Any]:
        # every field, in field order (with budgets, none hidden); None without one
        return {"register_budget": plain(self) if self.budgets else None}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        found = analysis.get("register_budget")
        return [Row("reg budgets", found["text"])] if found else []


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

    def summary(self, results: Results) -> dict[str, Any]:
        # each partition's loops, its spin loops folded by kind: its finding's words
        found = results.annotations
        return {"partitions": [a.message for a in found if a.kind == "warp-partition"]}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        return [Row("partition", text) for text in analysis.get("partitions", ())]

    def named(self, found: Iterable[Finding], site: Callable[[int], str]) -> list[str]:
        """Each partition's finding with its loops placed as the loops row places them (its
        statement's line in the source, with the calls it is inlined at), not by the line the
        SASS loop's first instructions carry. One finding per partition, in order."""
        texts = iter(partition_text(p, site) for p in self.partitions)
        out = []
        for a in found:
            text = a.message
            if a.kind == "warp-partition":
                head = text.split(": ", 1)[0]  # role, opcodes, entry: no ": " in them
                text = f"{head}: {next(texts)}"
            out.append(text)
        return out

    def spins(self) -> set[int]:
        """The SASS loops a partition counts as spins (mbarrier waits, setmaxnreg retries, the
        dispatch loop): left out of the loop census' JSON and rows."""
        return {i for p in self.partitions for loops in p.spins.values() for i in loops}


def partition_text(p: Partition, site: Callable[[int], str]) -> str:
    """`1 loop at line 48; spins: 1 setmaxnreg retry at line 48, 2 mbarrier waits at line 13
    (k.py, inlined at line 24)`: a partition's loops and its spin loops by kind, each placed
    by `site(loop index)`; `no loops` for none. Worded here only (warp_partitions.py)."""
    parts = [f"{_count(len(p.loops), 'loop')} at {_sites(p.loops, site)}"] if p.loops else []
    spins = [f"{_count(len(v), kind)} at {_sites(v, site)}" for kind, v in p.spins.items()]
    if spins:
        parts.append("spins: " + ", ".join(spins))
    return "; ".join(parts) or "no loops"


_LINE = re.compile(r"line (\d+)")


def _sites(loops: list[int], site: Callable[[int], str]) -> str:
    """`line 13`, `lines 41 and 48`, `line 23 and line 13 (k.py, inlined at line 24)`."""
    said = list(dict.fromkeys(site(i) for i in sorted(loops)))
    plain = [m.group(1) for s in said if (m := _LINE.fullmatch(s))]
    if len(said) > 1 and len(plain) == len(said):
        numbers = sorted(plain, key=int)
        return f"lines {', '.join(numbers[:-1])} and {numbers[-1]}"
    return " and ".join(said)


def _count(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word[:-1]}ies" if word.endswith("y") else f"{n} {word}s"


# warp_roles.py: a warp-specialised CuTe DSL kernel's roles
@dataclass(frozen=True, slots=True, eq=False)
class RoleWait(Record):
    """The wait loops of one kind at one line of a role."""

    kind: str  # "mbarrier wait" or "setmaxnreg retry" (wait_kind: analyses/spins.py's words)
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

    def summary(self, results: Results) -> dict[str, Any]:
        return {"warp_roles": plain(self.roles)}


def role_of(line: int | None, roles: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The warp role (analyses/warp_roles.py, as the summary gives it) whose lines hold `line`."""
    if line is None:
        return None
    return next((r for r in roles if r["first_line"] <= line <= r["last_line"]), None)


def role_loops(loops: list[dict[str, Any]], roles: list[dict[str, Any]]) -> list[str]:
    """One row per warp role, its loops and its wait loops folded into one clause
    (`mbarrier waits at lines 100, 106 (5 loops)`); then the loops outside every role."""
    waits = {(r["name"], w["line"]) for r in roles for w in r["waits"]}
    rows = []
    for role in roles:
        own = [e["summary"] for e in loops if role_of(e["source_line"], [role]) is role
               and (role["name"], e["source_line"]) not in waits]  # fmt: skip
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for w in role["waits"]:
            by_kind.setdefault(w["kind"], []).append(w)
        for kind, found in by_kind.items():
            where = ", ".join(str(w["line"]) for w in found)
            count = sum(w["loops"] for w in found)
            plural = "s" if len(found) > 1 else ""
            own.append(
                f"{_count(count, kind).split(' ', 1)[1]} at line{plural} {where}"
                + (f" ({count} loops)" if count > len(found) else "")
            )
        regs = f", setmaxnreg {role['setmaxnreg']}" if role["setmaxnreg"] else ""
        lines = f"lines {role['first_line']}-{role['last_line']}"
        cond = "" if role["condition"] == role["name"] else f"{role['condition']}: "
        head = f"{role['name']} ({cond}{lines}{regs})"
        rows.append(f"{head}: " + ("; ".join(own) or "no loops"))
    rest = [e["summary"] for e in loops if role_of(e["source_line"], roles) is None]
    if rest:
        rows.append("; ".join(rest))
    return rows
