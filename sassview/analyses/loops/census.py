"""The loop census of a CUDA C++ kernel: one entry per loop statement per inline context.

All architectures. Each file the line table names (the main file and every header it
includes) is scanned for its loop statements (`files.SourceFiles`); the entries' words and
findings are in `findings`. Each SASS instruction belongs to the innermost loop statement its
inline chain passes through: its own frame if that line lies in a loop, else the call site it
was inlined at, and so on out. The statement and the call sites outside it make the key of an
entry (`_Key`): a helper inlined at two call sites gives two entries, its loops nest in the
loop around each call.

Each SASS loop (graph/loops.py) goes to the deepest entry holding all its code (the lowest
common ancestor of its instructions' entries), or to the statement its back-edge compare names
when that one encloses it; an entry whose loop a nested SASS loop took already yields to its
parent. An entry with SASS loops is `rolled`; with code and none, `full`; a loop statement
inside an entry with code and none of its own, `gone`.

The factor of a rolled entry: with several SASS loops, the smallest is NVVM's remainder loop of
one iteration a trip, and the main loop's factor is the most common ratio of its (opcode,
location) counts to that one's. With one, straight-line copies beside it mark a remainder, and
give the factor when they are one iteration's worth; failing that each count is divided by the
copies of the full loops between the entry and the code counted (the 64 FFMA of an 8x8 nest
inside a K loop are one iteration of it), and the factor is the largest number dividing most
of them. The same measure over the PTX CFG and its .loc chains gives NVVM's factor
(`ptx_factor`). The copies of a full entry are its trip count when the header is constant,
else its own code's counts over the executions of its statement (the copies and factors of the
entries around it).

Some code is placed but not counted (`_uncounted`): the copy of warp-level code ptxas makes
for a diverged warp (`BRA.DIV`'s fallback, graph/divergence.py: cooperative groups' `reduce`
in a branch is 5 shuffle steps on the fast path, and the fallback is named on the entry, not
counted), ptxas' subroutines with no line of their own (the division slow path, which the line
table gives the row before it), and YIELD hints (whatever row was in force). A SHFL counts
with memory, one per step of a butterfly whose combine may be a compare and select.

Code is placed by its inline chain as the PTX gives it (`chained_sources`): ptxas' line table
gives the code of two call sites of one helper (two identical calls, two instantiations of a
template) the first site's chain, the PTX instruction each SASS instruction came from has its
own. How it can be wrong: code ptxas moved to another line than its PTX instruction's keeps
ptxas' chain. A loop with one SASS loop, no remainder and every body statement of k > 1
instructions of one opcode reads k times its factor. A constant trip count is trusted over the
SASS (a loop whose copies ptxas folded still reads its trip count). Peeled iterations read as a
straight-line remainder. Source lines are found by a line scan (macros and lambdas confuse it);
see `files` for how a header can be misread. A loop in a `__noinline__` function has no PTX
factor (its PTX is another function).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings
from sassview.analyses.loops.entry import LoopEntry, UnrollFacts
from sassview.analyses.loops.files import SourceFiles
from sassview.analyses.loops.findings import describe
from sassview.analyses.tile_loops import divides_most
from sassview.graph.cfg import ControlFlowGraph, build_ptx_cfg
from sassview.graph.divergence import Fallback, fallbacks, unsourced
from sassview.graph.loops import Loop, find_ptx_loops, loop_candidates
from sassview.ir import Kernel, OperandKind, PtxInstruction, SassInstruction, SourceLoc
from sassview.opcodes import is_move
from sassview.parse.inline_asm import CallSites
from sassview.parse.source_loops import SourceLoop

_Sites = tuple[tuple[str, int], ...]  # call sites (file, line), innermost first
_Key = tuple[str, int, _Sites]  # (file, index of its source loop, call sites)
_Pair = tuple[str, SourceLoc, int]  # (opcode, location, weight kind: see _weight)
_STATEMENT, _BODY, _INLINED = 0, 1, 2  # where an instruction sits in its entry

_MEMORY = ("LD", "ST", "ATOM", "RED", "TEX", "TLD", "SULD", "SUST", "LDGSTS", "UBLKCP", "UTMA")
# Named like memory, but none: constants, cp.async's commit, a warp's REDUX (`__reduce_*_sync`
# and the lane masks of a cooperative-groups tile narrower than the warp, computed once)
_NOT_MEMORY = ("LDC", "LDGDEPBAR", "REDUX")
_SHUFFLES = frozenset(("BFLY", "DOWN", "UP"))  # SHFL kinds whose lane operand is an offset
_MATH = frozenset(
    ("FADD", "FFMA", "FMUL", "FMNMX", "DADD", "DFMA", "DMUL", "HADD2", "HMUL2", "HFMA2", "MUFU")
    + ("HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA")
)


def weight(ins: SassInstruction) -> tuple[int, int]:
    """(kind, weight): 2 float/tensor math, 1 memory (weighing its 32-bit words: four stores
    merged into one STS.128 count 4) and lane exchange (a SHFL: one per step of a butterfly,
    whose combining op may be a compare and select), 0 what does not follow the iterations
    (moves, integer and address arithmetic, compares, branches: strength-reduced, shared by
    the copies)."""
    op = ins.opcode
    if "SpillRefill" in ins.marks:
        return -1, 0  # register-allocator traffic, not a copy of the source statement
    if is_move(ins):
        return 0, 1
    if op in _MATH:
        return 2, 1
    if op == "SHFL":
        return 1, 1
    if op.startswith(_MEMORY) and not op.startswith(_NOT_MEMORY):
        return 1, 4 if "128" in ins.modifiers else 2 if "64" in ins.modifiers else 1
    return 0, 1


_PTX_MATH = frozenset(
    ("fma", "add", "sub", "mul", "max", "min", "div", "rcp", "sqrt", "rsqrt", "ex2", "lg2")
    + ("sin", "cos", "tanh", "mma", "wgmma", "tcgen05")
)
_PTX_FLOAT = frozenset(("f16", "f16x2", "bf16", "bf16x2", "f32", "f64"))
_PTX_MEMORY = frozenset(("ld", "st", "atom", "red", "cp", "tex", "suld", "sust", "ldmatrix"))


def ptx_weight(ins: PtxInstruction) -> tuple[int, int]:
    """`weight` for PTX: float math (by type) and tensor ops, memory but parameters and
    constants (a `.v4` access weighs 4), the rest."""
    op, mods = ins.opcode, ins.modifiers
    if op in ("mma", "wgmma", "tcgen05") or (op in _PTX_MATH and not _PTX_FLOAT.isdisjoint(mods)):
        return 2, 1
    if op in _PTX_MEMORY and "param" not in mods and "const" not in mods:
        return 1, 4 if "v4" in mods else 2 if "v2" in mods else 1
    return 0, 1


class _Tree:
    """Entries of the census and where each instruction sits in them."""

    def __init__(self, files: SourceFiles) -> None:
        self.files = files
        self.sites: dict[_Key, tuple[SourceLoc, ...]] = {}
        self._memo: dict[SourceLoc, tuple[_Key | None, int]] = {}
        self._parents: dict[_Key, _Key | None] = {}
        self._around: dict[_Key, frozenset[_Key]] = {}

    def around(self, key: _Key) -> frozenset[_Key]:
        """`ancestors` as a set, memoised: asked once per instruction counted."""
        found = self._around.get(key)
        if found is None:
            found = self._around[key] = frozenset(self.ancestors(key))
        return found

    def place(self, loc: SourceLoc) -> tuple[_Key | None, int]:
        """(entry, role) of code at `loc`: the innermost loop its chain passes through."""
        found = self._memo.get(loc)
        if found is None:
            found = self._memo[loc] = self._place(loc)
        return found

    def _place(self, loc: SourceLoc) -> tuple[_Key | None, int]:
        frames = list(loc.frames())
        for j, fr in enumerate(frames):
            idx = self.files.innermost(fr.file, fr.line)
            if idx is None:
                continue
            outside = tuple(frames[j + 1 :])
            key = (fr.file, idx, tuple((f.file, f.line) for f in outside))
            self.sites.setdefault(key, outside)
            s = self.files.loops(fr.file)[idx]
            role = _STATEMENT if fr.line in s.statement else _BODY if j == 0 else _INLINED
            return key, role
        return None, -1

    def loop(self, key: _Key) -> SourceLoop:
        return self.files.loops(key[0])[key[1]]

    def parent(self, key: _Key) -> _Key | None:
        if key not in self._parents:
            up = self.loop(key).parent
            if up is not None:
                self._parents[key] = (key[0], up, key[2])
                self.sites.setdefault((key[0], up, key[2]), self.sites.get(key, ()))
            else:
                site = self.sites[key]
                self._parents[key] = self.place(site[0])[0] if site else None
        return self._parents[key]

    def ancestors(self, key: _Key) -> list[_Key]:
        """The key and every entry around it, innermost first."""
        out: list[_Key] = []
        k: _Key | None = key
        while k is not None:
            out.append(k)
            k = self.parent(k)
        return out

    def lca(self, keys: Iterable[_Key]) -> _Key | None:
        common: list[_Key] | None = None
        for k in keys:
            chain = self.ancestors(k)
            if common is None:
                common = chain
            else:
                inside = set(chain)
                common = [c for c in common if c in inside]
        return common[0] if common else None


def run(ctx: AnalysisContext) -> Findings:
    locs = {src for src in ctx.shared(chained_sources) if src is not None}
    files = SourceFiles(ctx, {f.file for loc in locs for f in loc.frames()})
    return _Census(ctx, files).findings()


@dataclass(frozen=True, slots=True)
class _Listing:
    """What the census measures: the SASS (ptxas' side) or the PTX (NVVM's side)."""

    instructions: Sequence[SassInstruction] | Sequence[PtxInstruction]
    cfg: ControlFlowGraph
    loops: tuple[Loop, ...]
    weight: Callable[[Any], tuple[int, int]]
    # The source locations that may name a loop's statement, best first (SASS: the back-edge
    # compare's; PTX: none, the deepest entry holding the loop's code decides).
    candidates: Callable[[Loop], list[SourceLoc]]
    # The PTX line of each instruction (SASS: the one it came from), to tell inline asm's code
    ptx_lines: Sequence[int | None] = ()
    # Each instruction's location with its inline chain (SASS: see `chained_sources`)
    sources: Sequence[SourceLoc | None] = ()
    # Instructions that are no copy of their statement (`_uncounted`): placed, never counted
    uncounted: frozenset[int] = frozenset()
    # The diverged-warp copies (SASS: graph/divergence.py), named on the entry holding them
    fallbacks: tuple[Fallback, ...] = ()


def _sass(ctx: AnalysisContext, files: SourceFiles) -> _Listing:
    ins = ctx.kernel.instructions
    # Most big kernels are straight-line code of a source with no loop statement at all.
    looped = any(files.loops(f) for f in files.names)
    diverged = fallbacks(ctx.cfg, ins) if looped else ()
    return _Listing(
        ins,
        ctx.cfg,
        ctx.loops,
        weight,
        lambda lp: loop_candidates(lp, ctx.cfg, ins),
        [i.ptx_line for i in ins],
        ctx.shared(chained_sources),
        _uncounted(ctx.cfg, ins, diverged) if looped else frozenset(),
        diverged,
    )


# ptxas' scheduling hints and padding: their line is whatever row was in force (a YIELD in a
# histogram's atomic loop named the line of the loop before it, which hid the loop).
_HINTS = frozenset(("YIELD", "NOP"))


def _uncounted(
    cfg: ControlFlowGraph, ins: Sequence[SassInstruction], diverged: tuple[Fallback, ...]
) -> frozenset[int]:
    """Instructions no copy of their statement: a diverged warp's second copy of code the
    fast path holds (cooperative groups' `reduce` in a branch: 5 shuffle steps, and 5 again
    after the EXIT), ptxas' subroutines whose line is the row before them (the division
    slow path read as the reduction before it), scheduling hints. They still make their
    statement's entry, but neither place a SASS loop nor count as copies."""
    out = {i for f in diverged for i in f.instructions}
    out.update(unsourced(cfg, ins))
    out.update(i for i, x in enumerate(ins) if x.opcode in _HINTS)
    return frozenset(out)


def chained_sources(kernel: Kernel) -> list[SourceLoc | None]:
    """Each SASS instruction's location, with the inline chain of the PTX instruction it came
    from where ptxas' line table gives another: ptxas names the code of a helper inlined at two
    call sites (or two instantiations of one template) by the first site's chain, the PTX's
    `.loc ... inlined_at` tells them apart. Only where the innermost file and line agree. Read
    through `AnalysisContext.shared`: computed once per kernel."""
    ptx = kernel.ptx
    by_line = {p.line: p.source for p in ptx.instructions if p.source} if ptx else {}
    out: list[SourceLoc | None] = []
    for i in kernel.instructions:
        src = i.source
        there = by_line.get(i.ptx_line) if i.ptx_line is not None else None
        if (
            src is not None
            and there is not None
            and there.inlined_at is not None
            and (there.file, there.line) == (src.file, src.line)
            and _sites(there) != _sites(src)
        ):
            src = src._replace(inlined_at=_plain(there.inlined_at))
        out.append(src)
    return out


def _sites(loc: SourceLoc) -> tuple[tuple[str, int], ...]:
    return tuple((f.file, f.line) for f in loc.frames())[1:]


def _plain(loc: SourceLoc | None) -> SourceLoc | None:
    """A chain of call sites without columns (ptxas' line table has none: pairs stay equal)."""
    if loc is None:
        return None
    return SourceLoc(loc.file, loc.line, 0, _plain(loc.inlined_at))


def _ptx(ctx: AnalysisContext) -> _Listing | None:
    function = ctx.kernel.ptx
    if function is None or not function.instructions:
        return None
    cfg = build_ptx_cfg(function)
    return _Listing(
        function.instructions,
        cfg,
        find_ptx_loops(cfg, function),
        ptx_weight,
        lambda lp: [],
        [i.line for i in function.instructions],
    )


class _Measure:
    """The entries' SASS (or PTX) loops and what one trip of each runs."""

    def __init__(self, listing: _Listing, tree: _Tree, asm: CallSites | None = None) -> None:
        self.listing, self.tree, self.files = listing, tree, tree.files
        self.asm = asm
        self.ins = listing.instructions
        # Most big kernels are straight-line code of a source with no loop statement at all.
        looped = any(self.files.loops(f) for f in self.files.names)
        place = self.tree.place
        self.sources = listing.sources or [i.source for i in self.ins]
        placed = [place(src) if src and looped else (None, -1) for src in self.sources]
        self.key = [k for k, _ in placed]
        self.role = [r for _, r in placed]
        self.uncounted = listing.uncounted
        self._regions: dict[int | None, list[int]] = {}
        self.groups: dict[_Key, list[Loop]] = {}
        self.loose: list[Loop] = []
        self.copies: dict[_Key, int | None] = {}  # of the full entries
        self.mains: dict[_Key, Loop] = {}  # the main SASS loop of each rolled entry
        # SASS loops as unrolled as the main one: loop versions, or the loops of two call
        # sites the line table gives one inline context
        self.versions: dict[_Key, list[Loop]] = {}
        self._assign()

    def region(self, loop: Loop | None) -> list[int]:
        """Instruction indices of one trip of `loop` (without its nested loops), or of the code
        outside every loop."""
        key = loop.index if loop else None
        if key not in self._regions:
            cfg, loops = self.listing.cfg, self.listing.loops
            inner = {k for o in loops if loop is None or o.parent == key for k in o.blocks}
            own = loop.blocks if loop else {b.index for b in cfg.blocks if b.reachable}
            spans = (cfg.blocks[k] for k in sorted(own - inner))
            self._regions[key] = [i for b in spans for i in range(b.first, b.last + 1)]
        return self._regions[key]

    def _assign(self) -> None:
        """Each SASS loop to an entry, nested loops first (see the module docstring)."""
        cfg, loops = self.listing.cfg, self.listing.loops
        taken: dict[int, _Key] = {}
        for lp in sorted(loops, key=lambda lp: -lp.depth):
            if self._inline_asm_only(lp):  # an mbarrier spin loop: no statement's, listed apart
                self.loose.append(lp)
                continue
            code = [
                i for k in lp.blocks for i in range(cfg.blocks[k].first, cfg.blocks[k].last + 1)
            ]
            lca = self.holder(code)
            if lca is None:
                self.loose.append(lp)
                continue
            around = self.tree.ancestors(lca)
            named = (self._statement_key(loc) for loc in self.listing.candidates(lp))
            key: _Key | None = next((k for k in named if k in around), lca)
            inside = {taken[o.index] for o in loops if o.index in taken and _within(o, lp, loops)}
            while key is not None and (key in inside or not self.can_hold(key)):
                key = self.tree.parent(key)
            if key is None:
                self.loose.append(lp)
                continue
            taken[lp.index] = key
            self.groups.setdefault(key, []).append(lp)

    def holder(self, code: list[int]) -> _Key | None:
        """The deepest entry holding all the code of `code` (instruction indices)."""
        skip = self.uncounted
        return self.tree.lca(k for i in code if (k := self.key[i]) is not None and i not in skip)

    def can_hold(self, key: _Key) -> bool:
        """Whether the statement of `key` may be a SASS loop's (a Python loop unrolled while
        the kernel is traced may not: see loops/python.py)."""
        return not self.tree.loop(key).static

    def _inline_asm_only(self, loop: Loop) -> bool:
        """Whether every instruction of one trip of `loop` (nested loops aside) with a PTX line
        comes from inside an inline asm statement: a loop the asm made, not a loop statement
        (the source line it carries is the asm statement's)."""
        if not self.asm or not self.listing.ptx_lines:
            return False
        lines = [n for i in self.region(loop) if (n := self.listing.ptx_lines[i]) is not None]
        return bool(lines) and all(map(self.asm.inside, lines))

    def _statement_key(self, loc: SourceLoc) -> _Key | None:
        """The entry of the loop statement a frame of `loc` is on (its header lines)."""
        frames = list(loc.frames())
        for j, fr in enumerate(frames):
            idx = self.files.statement(fr.file, fr.line)
            if idx is not None:
                key = (fr.file, idx, tuple((f.file, f.line) for f in frames[j + 1 :]))
                self.tree.sites.setdefault(key, tuple(frames[j + 1 :]))
                return key
        return None

    # -- measuring -----------------------------------------------------------------------

    def counts(self, indices: Iterable[int], key: _Key) -> Counter[tuple[_Pair, _Key]]:
        """(pair, entry) -> weighted count over `indices`, for code of `key` and the entries
        inside it; the statement's own lines (induction, compare) only when nothing else is."""
        body, header = self.split_counts(indices, key)
        return body or header

    def split_counts(
        self, indices: Iterable[int], key: _Key
    ) -> tuple[Counter[tuple[_Pair, _Key]], Counter[tuple[_Pair, _Key]]]:
        """`counts` as (body, the statement's own lines)."""
        body: Counter[tuple[_Pair, _Key]] = Counter()
        header: Counter[tuple[_Pair, _Key]] = Counter()
        skip = self.uncounted
        for i in indices:
            k = self.key[i]
            ins = self.ins[i]
            if k is None or i in skip or key not in self.tree.around(k):
                continue
            kind, n = self.listing.weight(ins)
            if kind < 0:
                continue
            src = self.sources[i]
            assert src is not None
            target = header if self.role[i] == _STATEMENT and k == key else body
            target[((ins.opcode, src, kind), k)] += n
        return body, header

    def executions(self, inner: _Key, outer: _Key, copies: dict[_Key, int | None]) -> int | None:
        """How many times `inner`'s body runs per iteration of `outer`: the copies of the full
        entries between them (None if one is unknown or a rolled one is between)."""
        n = 1
        for k in self.tree.ancestors(inner):
            if k == outer:
                return n
            c = copies.get(k)
            if c is None:
                return None
            n *= c
        return None

    def factor(
        self, key: _Key, loops: list[Loop], copies: dict[_Key, int | None]
    ) -> tuple[int | None, Loop, list[Loop], bool]:
        """(factor, main loop, remainder loops, straight-line remainder) of a rolled entry."""
        counted = [(lp, _pool(self.counts(self.region(lp), key))) for lp in loops]
        if len(counted) > 1:
            ref_loop, ref = min(counted, key=lambda c: (sum(c[1].values()), -c[0].first_address))
            ratios = [(_ratio(c, ref) if lp is not ref_loop else 1, lp) for lp, c in counted]
            f, main = max(ratios, key=lambda r: (r[0] or 0, -r[1].first_address))
            rest = [lp for r, lp in ratios if lp is not main and (r or 0) < (f or 0)]
            self.versions[key] = [lp for lp in loops if lp is not main and lp not in rest]
            return f, main, rest, False
        main, c = counted[0]
        outer = self.listing.loops[main.parent] if main.parent is not None else None
        tail = _pool(self.counts(self.region(outer), key))
        # Straight-line copies of the body beside the loop: NVVM's remainder unrolled (one
        # iteration's worth each, so the ratio is the factor) or ptxas' tail of its own
        # unrolling (several: the ratio is no whole number, the factor is counted below).
        straight = bool(tail) and 2 * len([p for p in c if p in tail]) >= len(c)
        r = _ratio(c, tail) if straight else None
        if r is not None and r >= 2:
            return r, main, [], True
        body, header = self.split_counts(self.region(main), key)
        normal = []
        for (_, k), n in _pool(body).items():
            m = self.executions(k, key, copies) if k != key else 1
            if m and n % m == 0:
                normal.append(n // m)
        if not normal:  # a body of nested rolled loops: the statement's own code, once a copy
            normal = list(_pool(header).values())
        f = divides_most(normal) if normal else None
        # A loop not unrolled leaves no remainder: code beside it is a peeled iteration.
        return f, main, [], straight and (f or 1) > 1

    def measured_copies(self, key: _Key, factors: dict[_Key, int | None]) -> int | None:
        """Copies of a full entry with no constant trip count: its own code's counts over the
        executions of its statement (the copies and factor of the entries around it)."""
        found = self.runs(key, factors)
        if found is None:
            return None
        runs, where = found
        own = Counter(
            {p: n for p, n in self.counts(self.region(where), key).items() if p[1] == key}
        )
        total = _copies(own)
        return total // runs if total and total % runs == 0 else None

    def runs(self, key: _Key, factors: dict[_Key, int | None]) -> tuple[int, Loop | None] | None:
        """(executions of a full entry's statement per trip of the SASS loop around it, that
        loop: None outside every loop), or None where a copy count or factor between them is
        unknown."""
        runs, k = 1, self.tree.parent(key)
        while k is not None and k not in self.groups:
            c = self.copies.get(k)
            if c is None:
                return None
            runs, k = runs * c, self.tree.parent(k)
        if k is None:
            return runs, None
        f = factors.get(k)
        return (runs * f, self.mains[k]) if f is not None else None


class _Census(_Measure):
    """The entries of the SASS, with NVVM's factors from the PTX beside them."""

    def __init__(self, ctx: AnalysisContext, files: SourceFiles) -> None:
        self.ctx = ctx
        self.nvvm: dict[_Key, int | None] = {}  # NVVM's factors (the PTX loops')
        self.diverged: dict[_Key, tuple[int, ...]] = {}  # see `fallbacks_of`
        self.factors: dict[_Key, int | None] = {}  # the SASS loops'

        ptx = ctx.program.ptx
        self.asm = CallSites(ptx.inline_asm if ptx else ())
        super().__init__(_sass(ctx, files), _Tree(files), self.asm)

    def findings(self) -> Findings:
        keys = {k for k in self.key if k is not None} | set(self.groups)
        for k in list(keys):
            keys.update(self.tree.ancestors(k))
        gone = {
            (f, j, sites)
            for f, i, sites in keys
            for j, s in enumerate(self.files.loops(f))
            if s.parent == i and (f, j, sites) not in keys
        }
        self.copies = {k: self.tree.loop(k).trip_count for k in keys if k not in self.groups}
        factors: dict[_Key, int | None] = {}
        measured: dict[_Key, tuple[Loop, list[Loop], bool]] = {}
        for k in sorted(self.groups, key=lambda k: -len(self.tree.ancestors(k))):
            f, main, rest, straight = self.factor(k, self.groups[k], self.copies)
            factors[k], self.mains[k] = f, main
            measured[k] = (main, rest, straight)
        for k in sorted(keys - set(self.groups), key=lambda k: len(self.tree.ancestors(k))):
            if self.copies[k] is None:
                self.copies[k] = self.measured_copies(k, factors)
        self.factors = factors
        self.nvvm = self._nvvm_factors()
        self.diverged = self.fallbacks_of()
        order = sorted(keys | gone, key=self._order)
        index = {k: n for n, k in enumerate(order)}
        entries: list[LoopEntry] = []
        notes: list[Annotation] = []
        for k in order:
            entry = self._entry(k, index, factors, measured, k in gone)
            entries.append(entry)
            if k in measured:
                main, rest, _ = measured[k]
                notes += describe(entry, main.addresses, rest)
            else:
                notes += describe(entry, self.code_of(k), [])
        for lp in self.loose:
            entry = _loose(lp, self._chain(lp))
            entries.append(entry)
            notes += describe(entry, lp.addresses, [])
        return Findings(
            facts=UnrollFacts(loops=[e.to_json() for e in entries], entries=tuple(entries)),
            annotations=tuple(notes),
        )

    def _nvvm_factors(self) -> dict[_Key, int | None]:
        """NVVM's side: the factor of each rolled entry's PTX loop, measured alike. For CUDA
        C++ NVVM unrolls and marks the loop nounroll; where ptxas unrolls again (sm_100 and
        later), the SASS factor is the product."""
        listing = _ptx(self.ctx) if self.groups else None
        if listing is None or not listing.loops:
            return {}
        ptx = _Measure(listing, self.tree, self.asm)
        out = {}
        for k in sorted(ptx.groups, key=lambda k: -len(self.tree.ancestors(k))):
            if k in self.groups:
                n = ptx.factor(k, ptx.groups[k], self.copies)[0]
                f = self.factors.get(k)
                # ptxas adds copies, it never takes NVVM's away: a PTX factor that does not
                # divide the SASS one was misread (a PTX statement of many instructions).
                out[k] = n if n and f and f % n == 0 else None
        return out

    def _chain(self, loop: Loop) -> tuple[SourceLoc, ...]:
        """The call sites of a loop no statement explains (an inline asm wait loop in a helper):
        those of its first instruction at the loop's own line."""
        src, ins = loop.source, self.ctx.kernel.instructions
        if src is None:
            return ()
        inside = set(loop.addresses)
        for i, at in enumerate(self.sources):
            here = at is not None and (at.file, at.line) == (src.file, src.line)
            if here and at is not None and ins[i].address in inside:
                return tuple(at.frames())[1:]
        return ()

    def measured_copies(self, key: _Key, factors: dict[_Key, int | None]) -> int | None:
        """`_Measure.measured_copies`, corrected by the statement's shuffles: a butterfly's
        steps each shuffle by their own lane offset (`shuffle_steps`), so a count k times the
        steps, with k shuffles of each offset a run, is k values reduced in one loop (a
        float2: 10 FADD on one line for 5 steps), not 5k copies. Other counts stand: the
        shuffles can miss a step ptxas folded or gave another inline chain (a Welford
        triple's, beside a float2's, shows 4 offsets of its 5 steps)."""
        found = super().measured_copies(key, factors)
        where = self.runs(key, factors)
        shuffles = self.shuffle_steps(self.region(where[1]), key) if where else None
        if shuffles is None or found is None or where is None:
            return found
        steps, each = shuffles
        k, rest = divmod(found, steps)
        return steps if k > 1 and not rest and each == k * where[0] else found

    def shuffle_steps(self, indices: Iterable[int], key: _Key) -> tuple[int, int] | None:
        """(distinct lane offsets, shuffles of each) of the entry's own SHFL.BFLY/DOWN/UP
        among `indices`, when there are two or more offsets, each as often as the others, and
        all immediates (a butterfly unrolled: 0x10, 0x8, 0x4, 0x2, 0x1); else None."""
        offsets: Counter[int | float] = Counter()
        ins = self.ctx.kernel.instructions
        for i in indices:
            x = ins[i]
            if x.opcode != "SHFL" or self.key[i] != key or i in self.uncounted:
                continue
            if _SHUFFLES.isdisjoint(x.modifiers) or len(x.operands) < 4:
                continue
            offset = x.operands[3].value
            if x.operands[3].kind is not OperandKind.IMMEDIATE or offset is None:
                return None  # a lane offset known only at run time
            offsets[offset] += 1
        counts = set(offsets.values())
        if len(offsets) < 2 or len(counts) > 1:
            return None
        return len(offsets), counts.pop()

    def code_of(self, key: _Key) -> tuple[int, ...]:
        """The addresses of the code of an entry and of the entries inside it."""
        ins, skip = self.ctx.kernel.instructions, self.uncounted
        return tuple(
            ins[i].address
            for i, k in enumerate(self.key)
            if k is not None and i not in skip and key in self.tree.around(k)
        )

    def fallbacks_of(self) -> dict[_Key, tuple[int, ...]]:
        """Entry -> the first addresses of the diverged-warp copies of its code: each copy
        goes to the deepest entry holding all of its placed code."""
        out: dict[_Key, tuple[int, ...]] = {}
        for f in self.listing.fallbacks:
            k = self.tree.lca(k for i in f.instructions if (k := self.key[i]) is not None)
            if k is not None:
                out[k] = (*out.get(k, ()), f.first_address)
        return out

    def _order(self, key: _Key) -> tuple[bool, str, int, _Sites]:
        s = self.tree.loop(key)
        return (key[0] != self.files.main, key[0], s.line, key[2])

    def _entry(
        self,
        key: _Key,
        index: dict[_Key, int],
        factors: dict[_Key, int | None],
        measured: dict[_Key, tuple[Loop, list[Loop], bool]],
        gone: bool,
    ) -> LoopEntry:
        s = self.tree.loop(key)
        up = s.parent if s.parent is not None else -1
        parent = self.tree.parent(key) if not gone else (key[0], up, key[2])
        common = {
            "line": s.line,
            "file": key[0],
            "trip_count": s.trip_count,
            "requested": s.requested,
            "requested_by": s.requested_by,
            "inlined_at": self.tree.sites.get(key, ()),
            "depth": len(self.tree.ancestors(parent)) + 1 if parent else 1,
            "parent": index.get(parent) if parent else None,
            "fallbacks": self.diverged.get(key, ()),
        }
        if gone:
            return LoopEntry(kind="gone", **common)  # type: ignore[arg-type]
        if key in measured:
            main, rest, straight = measured[key]
            return LoopEntry(
                kind="rolled",
                factor=factors[key],
                ptx_factor=self.nvvm.get(key),
                remainder=bool(rest) or straight,
                sass_loops=(main.index, *(lp.index for lp in self.versions.get(key, ()))),
                remainder_loops=tuple(lp.index for lp in rest),
                back_edges=main.back_edges,
                blocks=tuple(sorted(main.blocks)),
                first_address=main.first_address,
                instructions=len(main.addresses),
                **common,  # type: ignore[arg-type]
            )
        code = self.code_of(key)
        return LoopEntry(
            kind="full",
            copies=self.copies.get(key),
            first_address=code[0] if code else None,
            instructions=len(code),
            **common,  # type: ignore[arg-type]
        )


def _within(inner: Loop, outer: Loop, loops: tuple[Loop, ...]) -> bool:
    """Whether `inner` is nested (at any depth) in `outer`."""
    up = inner.parent
    while up is not None:
        if up == outer.index:
            return True
        up = loops[up].parent
    return False


def _copies(counts: Counter[tuple[_Pair, _Key]]) -> int | None:
    """Copies of straight-line code: what its math says, or its memory accesses where the
    math finds no repeat (1). Math errs low where the first copy folds into constants (`a =
    1; a = a*x + 1` is an FADD, then FFMAs); memory errs high where a line reads two arrays
    (sgemm's `As[ty][k] * Bs[k][tx]`: 16 FFMA, but 16 LDS and 4 LDS.128 of 4 words, 32) and
    low where copies share loads of invariant or neighbouring elements."""
    found = [
        divides_most(list(chosen.values()))
        for kind in (2, 1)
        if (chosen := Counter({p: n for p, n in counts.items() if p[0][2] == kind}))
    ]
    if not found:
        return divides_most(list(counts.values())) if counts else None
    return found[0] if found[0] > 1 else max(found)


def _pool(counts: Counter[tuple[_Pair, _Key]]) -> Counter[tuple[_Pair, _Key]]:
    """The pairs to trust: float or tensor math if any, else memory, else all. Math depends on
    the iteration; a load of an invariant or neighbouring element is often shared by copies."""
    for kind in (2, 1):
        chosen = Counter({p: n for p, n in counts.items() if p[0][2] == kind})
        if chosen:
            return chosen
    return counts


def _ratio(counts: Counter[tuple[_Pair, _Key]], ref: Counter[tuple[_Pair, _Key]]) -> int | None:
    """The most common whole ratio of `counts` to `ref` over the pairs both have."""
    ratios = Counter(counts[k] // ref[k] for k in counts if k in ref and counts[k] % ref[k] == 0)
    return max(ratios, key=lambda r: (ratios[r], r)) if ratios else None


def _loose(loop: Loop, sites: tuple[SourceLoc, ...]) -> LoopEntry:
    src = loop.source
    return LoopEntry(
        line=src.line if src else None,
        file=src.file if src else None,
        inlined_at=sites,
        kind="rolled",
        factor=None,
        statement=False,
        depth=loop.depth,
        sass_loops=(loop.index,),
        back_edges=loop.back_edges,
        blocks=tuple(sorted(loop.blocks)),
        first_address=loop.first_address,
        instructions=len(loop.addresses),
    )


__all__ = ["run", "weight"]
