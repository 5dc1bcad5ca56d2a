"""The loop record every view reads, and the words for it (written once, here).

One `LoopEntry` per loop statement (`for`, `while`, `do`, in any file) per inline context: a
helper inlined at two call sites has two. `kind` says what the compiler left of it:

- `rolled`: a SASS loop remains; `factor` source iterations run per trip of its main SASS loop
  and `remainder` says whether a remainder loop (or straight-line code) runs the rest;
- `full`: no SASS loop is left for it; `copies` of its body per execution of the statement (in
  a nest, each level has its own: an 8x8 nest is two entries of 8 copies, not one of 64);
- `gone`: no code is left for it.

`factor` and `copies` are None where the evidence is ambiguous: "unknown" rather than a
confident wrong number.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypedDict

from sassview.analyses.facts import NO_STATEMENT, Facts, Pair, Results, Row, once_each
from sassview.analyses.records import WarpPartitionFacts, role_loops
from sassview.ir import SourceLoc

Kind = Literal["rolled", "full", "gone"]
Request = int | str | None  # N, "full", or nothing asked
# The JSON keys one frontend adds to its loops (`LoopEntry.extra`): Triton's factor before the
# PTX (schema 1's key), a requested loop's ptxas factor (unroll.py's loops of Python kernels).
ExtraKey = Literal["triton_factor", "ptxas_factor"]


class InlinedAt(TypedDict):
    file: str | None
    line: int


class _LoopJsonExtra(TypedDict, total=False):
    """The keys of `LoopJson` only some loops have (Python 3.10 has no NotRequired)."""

    requested_by: str  # where not a C++ pragma
    spin: str  # a retry loop ptxas made of one PTX instruction: what it retries (schema 5)
    waits: str  # another loop of no statement: what it waits on or runs (schema 6)
    triton_factor: int | None
    ptxas_factor: int | None


class LoopJson(_LoopJsonExtra):
    """A `LoopEntry` as the JSON writes it (`LoopEntry.to_json`, docs/json.md)."""

    source_line: int | None
    file: str | None
    depth: int
    has_back_edge: bool
    achieved_factor: int | None
    requested_factor: Request
    remainder: bool
    first_address: int | None
    instructions: int
    tensor_ops: int
    statement: bool
    sass_loops: list[int]
    remainder_loops: list[int]
    kind: Kind
    factor: int | None
    copies: int | None
    ptx_factor: int | None
    trip_count: int | None
    inlined_at: list[InlinedAt]
    parent: int | None
    back_edges: list[list[int]]
    fallbacks: list[int]
    decided_by: str
    summary: str


# Every key of LoopJson, for a reader that picks some by name (report/summary.py).
LoopKey = Literal[
    "source_line", "file", "depth", "has_back_edge", "achieved_factor", "requested_factor",
    "remainder", "first_address", "instructions", "tensor_ops", "statement", "sass_loops",
    "remainder_loops", "kind", "factor", "copies", "ptx_factor", "trip_count", "inlined_at",
    "parent", "back_edges", "fallbacks", "decided_by", "summary", "requested_by",
    "triton_factor", "ptxas_factor", "spin", "waits",
]  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopEntry:
    line: int | None  # of the loop statement's keyword (None: a loop no statement explains)
    file: str | None
    kind: Kind
    factor: int | None = None  # rolled: source iterations per trip of the main SASS loop
    # rolled, factor None: why it is not known, in words ending on what would settle it (the
    # bare-cubin reading: analyses/unroll.py); None where not said
    unknown_why: str | None = None
    ptx_factor: int | None = None  # rolled: NVVM's factor, of the PTX loop (C++; else None)
    remainder: bool = False  # rolled: iterations left to a remainder loop or straight-line code
    copies: int | None = None  # full: copies of the body per execution of the statement
    trip_count: int | None = None  # when the header is constant
    requested: Request = None  # the pragma (or range keyword) written on this statement
    # "pragma" (C++), "range" (CuTe DSL unroll=/unroll_full=), "range_constexpr",
    # "static_range", "loop_unroll_factor" (Triton), "ptx" (.pragma nounroll)
    requested_by: str = "pragma"
    unroller: str = "NVVM"  # who unrolled before the PTX (`ptx_factor`): NVVM, or Triton
    inlined_at: tuple[SourceLoc, ...] = ()  # the call sites, innermost first
    depth: int = 1  # 1 = outermost, counted over inline chains
    parent: int | None = None  # index of the enclosing entry in the kernel's list
    statement: bool = True  # False: a loop of inline asm or made by the compiler
    sass_loops: tuple[int, ...] = ()  # the main SASS loop first, then any others like it
    remainder_loops: tuple[int, ...] = ()
    back_edges: tuple[tuple[int, int], ...] = ()  # (latch block, header) of the main SASS loop
    blocks: tuple[int, ...] = ()  # of the main SASS loop
    first_address: int | None = None
    instructions: int = 0  # in the main SASS loop, or of the statement's code when none is left
    tensor_ops: int = 0  # MMA instructions among those (`instructions`'): a trip's, or the copies'
    extra: tuple[tuple[ExtraKey, int | None], ...] = ()  # JSON keys of one frontend
    # First addresses of the copies of its code a diverged warp runs instead (BRA.DIV's
    # fallbacks, graph/divergence.py): not counted in `copies` or `factor`
    fallbacks: tuple[int, ...] = ()
    # What settled `copies` / `factor`: "count" (the census' counting of the listing, and the
    # trip count of a constant header), or "rolled build" (the real build's count at the body's
    # lines over a build with every loop rolled: loops/rolled.py)
    decided_by: str = "count"
    # A loop of no statement among others at its place (line, file, call sites: an asm
    # statement's loops copied by unrolling): (n, of), in address order; None where alone
    ordinal: tuple[int, int] | None = None
    # A loop of no statement that ptxas made of one PTX instruction it retries: what it retries
    # ("setmaxnreg retry": analyses/spins.py), its name where the others' is NO_STATEMENT; the
    # line table gives it the line of the statement around it, which it is no copy of
    spin: str | None = None
    # A loop of no statement otherwise, named by what it waits on or runs (analyses/spins.py,
    # `loose_kind`): "mbarrier wait" (an inline asm's try-wait loop), "worker dispatch" (the
    # jump table of a warp-specialized kernel's worker warps), as the warp partitions name it
    waits: str | None = None

    @property
    def place(self) -> str:
        """`line 14 (census.cuh, inlined at line 73)`, `loop` for one no line explains; a loop
        no statement explains says so (`line 28 (asm/compiler loop)`): it shares its line with
        the statement's own loop, if any, and must not read as that one; several at one place
        are numbered (`line 28 (asm/compiler loop 2 of 5)`), as a statement's loops are; a retry
        loop ptxas made is named by what it retries (`line 48 (setmaxnreg retry loop 1 of 5)`)."""
        if self.statement:
            return self.site
        unexplained = self.unexplained + (
            f" {self.ordinal[0]} of {self.ordinal[1]}" if self.ordinal else ""
        )
        return unexplained if self.line is None else self._at([unexplained])

    @property
    def unexplained(self) -> str:
        """What a loop of no statement is: `setmaxnreg retry loop` (`spin`), `mbarrier wait
        loop` (`waits`), else `asm/compiler loop`."""
        kind = self.spin or self.waits
        return f"{kind} loop" if kind else NO_STATEMENT

    @property
    def site(self) -> str:
        """`line 14 (census.cuh, inlined at line 73)`: where the loop is in the source, its
        line and the calls it is inlined at, not which loop it is there (a warp partition's
        retry loops are named by where they wait: analyses/records.py)."""
        return "loop" if self.line is None else self._at([])

    def _at(self, more: list[str]) -> str:
        inner = [self.file.rsplit("/", 1)[-1]] if self.file and self.inlined_at else []
        if self.inlined_at:
            inner.append("inlined at " + " < ".join(f"line {c.line}" for c in self.inlined_at))
        inner += more
        return f"line {self.line}" + (f" ({', '.join(inner)})" if inner else "")

    @property
    def where(self) -> str:
        """`loop at line 14 (census.cuh, inlined at line 73)`: how a finding names it."""
        return self.place if self.line is None else f"loop at {self.place}"

    def place_of(self, sass_loop: int) -> str | None:
        """How every view names one of this entry's SASS loops (a schedule row, a finding, the
        TUI's and the exports' loop labels): `line 9` where the entry has that loop alone,
        `line 9 (main loop)` beside its remainder loops, `line 9 (remainder loop 1 of 2)`, in
        address order, `line 9 (main loop 2 of 2)` for a loop as unrolled as the main one (a
        version of it); None for a SASS loop not this entry's."""
        mains, rests = self.sass_loops, self.remainder_loops
        if sass_loop in mains:
            if len(mains) == 1 and not rests:
                return self.place
            return f"{self.place} (main loop{_nth(mains, sass_loop)})"
        if sass_loop in rests:
            return f"{self.place} (remainder loop{_nth(rests, sass_loop)})"
        return None

    def summary(self) -> str:
        """`line 9: unrolled by 4, with a remainder loop (asked: #pragma unroll 4) [counted in
        the SASS]`: the loop in the long words of `check` and the exports' loop tables."""
        return f"{self.place}: {decided_claim(self)}"

    def tag(self) -> str:
        """`l9 x4+rem (asked 4)`, `l14@73 full x8`, `l28 factor unknown`: the same verdict in
        the TUI header's few characters (its words where a number is missing)."""
        where = "loop" if self.line is None else f"l{self.line}"
        if self.inlined_at:
            where += "@" + "<".join(str(c.line) for c in self.inlined_at)
        if not self.statement:
            text = self.unexplained
        elif self.kind == "gone":
            text = NO_CODE
        elif self.kind == "full":
            text = f"full {COPIES_UNKNOWN}" if self.copies is None else f"full x{self.copies}"
        elif self.factor is None:
            text = FACTOR_UNKNOWN
        else:
            text = f"x{self.factor}" + ("+rem" if self.remainder else "")
        want = "" if self.requested is None else f" (asked {self.requested})"
        if self.requested is not None and self.requested_by == "ptx":
            want = " (PTX nounroll)"  # NVVM's marker as often as a request: `_ptx_marked`
        how = decided(self, short=True)
        return f"{where} {text}{want}" + (f" [{how}]" if how else "")

    def to_json(self) -> LoopJson:
        """The JSON form (docs/json.md, schema 2): the schema-1 keys where their meaning holds
        (`achieved_factor` is the factor of a rolled loop, the copies of a full one, as before),
        plus the census keys and the loop's words (`summary`), for every view to read."""
        out: LoopJson = {
            "source_line": self.line,
            "file": self.file,
            "depth": self.depth,
            "has_back_edge": self.kind == "rolled",
            "achieved_factor": self.factor if self.kind == "rolled" else self.copies,
            "requested_factor": self.requested,
            "remainder": self.remainder,
            "first_address": self.first_address,
            "instructions": self.instructions,
            "tensor_ops": self.tensor_ops,
            "statement": self.statement,
            "sass_loops": list(self.sass_loops),
            "remainder_loops": list(self.remainder_loops),
            "kind": self.kind,
            "factor": self.factor,
            "copies": self.copies,
            "ptx_factor": self.ptx_factor,
            "trip_count": self.trip_count,
            "inlined_at": [{"file": c.file, "line": c.line} for c in self.inlined_at],
            "parent": self.parent,
            "back_edges": [list(e) for e in self.back_edges],
            "fallbacks": list(self.fallbacks),
            "decided_by": self.decided_by,
            "summary": self.summary(),
        }
        if self.requested is not None and self.requested_by != "pragma":
            out["requested_by"] = self.requested_by
        if self.spin is not None:
            out["spin"] = self.spin
        if self.waits is not None:
            out["waits"] = self.waits
        for key, value in self.extra:
            out[key] = value
        return out


# The words for what is not known, the same in the long and the short form.
FACTOR_UNKNOWN = "factor unknown"
COPIES_UNKNOWN = "copies unknown"
NO_CODE = "no code left"


def _nth(loops: tuple[int, ...], loop: int) -> str:
    """` 2 of 3` among several (in address order, as the census lists them), else ``."""
    return f" {loops.index(loop) + 1} of {len(loops)}" if len(loops) > 1 else ""


def loop_entry(entries: Iterable[LoopEntry], sass_loop: int) -> LoopEntry | None:
    """The entry SASS loop `sass_loop` is one of (a main, version or remainder loop); None
    where no entry holds it."""
    return next((e for e in entries if e.place_of(sass_loop) is not None), None)


def loop_name(entries: Iterable[LoopEntry], sass_loop: int) -> str | None:
    """How the loop census names SASS loop `sass_loop` (`LoopEntry.place_of`: its statement's
    line, and which of its loops it is); None where no entry holds it. The one name every
    view gives a SASS loop (`Inspection.loop_name` adds what names one no entry holds)."""
    e = loop_entry(entries, sass_loop)
    return None if e is None else e.place_of(sass_loop)


# How an entry's number was settled (`decided`): the words in a claim, and the TUI's short ones.
_DECIDED = {
    "count": ("counted in the SASS", "counted"),
    "trip count": ("from the trip count", "trip count"),
    "rolled build": ("asked the compiler", "asked compiler"),
}


def decided(e: LoopEntry, short: bool = False) -> str:
    """How the claim's number (a rolled entry's factor, a full one's copies) was decided, in
    words a kernel author reads: `counted in the SASS` (the census' count of the body's
    copies, `decided_by` "count"), `from the trip count` (a full entry whose constant header
    gave its copies, also "count"), `asked the compiler` (the rolled builds,
    loops/rolled.py: "rolled build"); "" where the claim has no number (unknown, no code
    left, no loop statement). `short`: the TUI header's words. Every view reads these."""
    number = e.factor if e.kind == "rolled" else e.copies if e.kind == "full" else None
    if number is None or not e.statement:
        return ""
    how = e.decided_by
    if how == "count" and e.kind == "full" and e.trip_count is not None and number == e.trip_count:
        how = "trip count"
    long, brief = _DECIDED.get(how, (how, how))
    return brief if short else long


def _how(e: LoopEntry) -> str:
    how = decided(e)
    return f" [{how}]" if how else ""


def verdict(e: LoopEntry) -> str:
    """What the compiler made of the loop, in words, without its place: `summary`, the census'
    info finding and assert_unrolled read it."""
    return _made(e) + diverged(e.fallbacks)


def claim(e: LoopEntry) -> str:
    """The verdict with the request beside what was made of it: `not unrolled (asked: #pragma
    unroll 1), plus a diverged-warp fallback at /*00f0*/ (not counted)` (`summary` without
    the place)."""
    return _made(e) + asked(e) + diverged(e.fallbacks)


def decided_verdict(e: LoopEntry, unasked: str = "") -> str:
    """The verdict and how its number was decided (`decided`): `unrolled by 4, with a
    remainder loop [counted in the SASS]`, the census' info finding on the loop. `unasked`:
    what nobody asked for, said in the same finding (`, without being asked`:
    loops/findings.py), one finding per cause."""
    return _made(e) + unasked + _how(e) + diverged(e.fallbacks)


def decided_claim(e: LoopEntry) -> str:
    """The claim and how its number was decided (`decided`): `unrolled by 4, with a remainder
    loop (asked: #pragma unroll 4) [counted in the SASS]`, what `check`'s loops row, the JSON's
    `summary`, the exports' loop tables and a failing `assert_unrolled` say of a loop."""
    return _made(e) + asked(e) + _how(e) + diverged(e.fallbacks)


def diverged(fallbacks: tuple[int, ...]) -> str:
    """`, plus a diverged-warp fallback at /*2a90*/ (not counted)`: the second copy ptxas
    makes of warp-synchronous code it cannot prove converged (`BRA.DIV`)."""
    if not fallbacks:
        return ""
    n = len(fallbacks)
    which = "a diverged-warp fallback at" if n == 1 else f"{n} diverged-warp fallbacks from"
    return f", plus {which} /*{fallbacks[0]:04x}*/ (not counted)"


def _made(e: LoopEntry) -> str:
    if e.spin is not None:
        return "ptxas' retry of one PTX instruction (no loop statement)"
    if not e.statement:
        return "a loop of inline asm or made by the compiler (no loop statement)"
    if e.kind == "gone":
        return NO_CODE
    if e.kind == "full":
        n = e.copies
        count = COPIES_UNKNOWN if n is None else f"{n} {'copy' if n == 1 else 'copies'}"
        return f"fully unrolled ({count}, no loop left)"
    if e.factor is None:
        why = f" ({e.unknown_why})" if e.unknown_why else ""
        return f"a loop remains, unroll {FACTOR_UNKNOWN}{why}"
    text = "not unrolled" if e.factor == 1 else f"unrolled by {e.factor}"
    text += by_whom(e.ptx_factor, e.factor, e.unroller)
    if e.remainder:
        text += ", with a remainder loop" if e.remainder_loops else ""
        text += "" if e.remainder_loops else ", with a straight-line remainder"
    return text


def by_whom(n: int | None, f: int | None, unroller: str = "NVVM") -> str:
    """` (x4 by NVVM, then x4 by ptxas)` where both compilers unrolled (`n` the factor before
    the PTX, by `unroller`; `f` the SASS one), ` (x4 by Triton)` where only the first did."""
    if not n or not f or f % n:
        return ""
    if n == f:
        return f" (x{n} by {unroller})" if n > 1 and unroller != "NVVM" else ""
    return f" (x{n} by {unroller}, then x{f // n} by ptxas)" if n > 1 else f" (x{f} by ptxas)"


def asked(e: LoopEntry) -> str:
    """How the source asked: a C++ pragma, or a CuTe DSL range call's keyword."""
    want = e.requested
    if want is None:
        return ""
    if e.requested_by == "range":
        return f" (asked: {'unroll_full=True' if want == 'full' else f'unroll={want}'})"
    if e.requested_by == "loop_unroll_factor":
        return f" (asked: loop_unroll_factor={want})"
    if e.requested_by in ("static_range", "range_constexpr"):
        return f" (asked: {e.requested_by})"
    if e.requested_by == "ptx":
        return _ptx_marked(e)
    return " (asked: #pragma unroll)" if want == "full" else f" (asked: #pragma unroll {want})"


def _ptx_marked(e: LoopEntry) -> str:
    """A PTX `.pragma "nounroll"`, which is no request of the source's: NVVM (or any LLVM
    before ptxas) writes it on every loop it is done unrolling, and `#pragma unroll 1` writes
    the same. Where the PTX loop already held the copies (the SASS factor over ptxas' own,
    `ptxas_factor`), they were made before the PTX, and the pragma only kept ptxas off."""
    ptxas = dict(e.extra).get("ptxas_factor")
    if e.factor and ptxas and e.factor > ptxas and e.factor % ptxas == 0:
        return f" (nounroll in the PTX, x{e.factor // ptxas} before it)"
    return " (nounroll in the PTX)"


@dataclass(frozen=True, slots=True, eq=False)
class UnrollFacts(Facts):
    """Each source loop's unrolling: `entries` typed (what views read), `loops` their JSON."""

    ANALYSIS: ClassVar[str] = "unroll"
    loops: list[LoopJson]
    entries: tuple[LoopEntry, ...]

    def summary(self, results: Results) -> dict[str, Any]:
        """`loops`: every entry's JSON keys (_LOOP_KEYS) but the spin loops a warp partition
        counts (its own row says them)."""
        spins = results.typed_facts(WarpPartitionFacts).spins()
        shown = (e.to_json() for e in self.entries if not (spins and set(e.sass_loops) <= spins))
        return {"loops": [{k: e[k] for k in _LOOP_KEYS if k in e} for e in shown]}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        """One row of every loop's words (alike ones once, with their count: the wait loops of
        one inline asm statement copied by unrolling), or one per warp role
        (analyses/warp_roles.py)."""
        roles = analysis.get("warp_roles") or []
        if roles:
            return [Row("loops", text) for text in role_loops(analysis["loops"], roles)]
        if analysis["loops"]:
            return [Row("loops", "; ".join(once_each(e["summary"] for e in analysis["loops"])))]
        return []

    def header(self, analysis: Mapping[str, Any]) -> list[Pair]:
        return [Pair("loops", ", ".join(e.tag() for e in self.entries) or "none")]


# A loop's keys in `check --json` (docs/json.md): schema 1's, then the census' (schema 2), then
# Triton's factor (only on loops of Triton kernels). Typed as LoopJson's keys: a key it lost is
# a mypy error.
_LOOP_KEYS: tuple[LoopKey, ...] = (
    *("source_line", "file", "depth", "has_back_edge", "achieved_factor", "requested_factor"),
    *("remainder", "statement", "requested_by"),
    *("kind", "factor", "ptx_factor", "copies", "trip_count", "inlined_at", "parent"),
    "fallbacks",  # the copies a diverged warp runs instead (BRA.DIV), not counted
    "decided_by",  # what settled copies / factor: "count" or "rolled build" (loops/rolled.py)
    "summary",  # the loop in words (LoopEntry.summary): what `check` prints
    "spin",  # a retry loop ptxas made (no statement): what it retries (schema 5)
    "waits",  # another loop of no statement: what it waits on or runs (schema 6)
    "triton_factor",
)
