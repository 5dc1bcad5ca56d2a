"""The loop census of Triton and CuTe DSL kernels: the C++ census (`census`) over Python loop
statements, measured as tile languages must be.

Statements: every `for` and `while` of each Python file the line table names, read with `ast`
(`parse.python_loops`), each with what its range call asks: `tl.range(...,
loop_unroll_factor=N)`, `tl.static_range`, `cutlass.range(..., unroll=N | unroll_full=True)`,
`cutlass.range_constexpr`. Triton's line table chains a `@jit` helper's code to its call line
(`inlined_at`), so a helper's loop has an entry per call site, as in C++; the CuTe DSL traces
its `@cute.jit` helpers into the kernel and names their lines alone. Code at lines in no loop
(the DSL's loop control, at its functions' `def` and decorator lines; a `setmaxregister_increase`
call) belongs to no statement: a SASS loop goes to the deepest statement holding its body.
`tl.static_range` and `range_constexpr` unroll while the kernel is traced, `unroll_full=True`
over constant bounds in NVVM: such a statement is never a SASS loop's (its loop around takes it).

Factors: one `tl.dot` or `cute.gemm` is many instructions by design, so copies are not counted
per source line. Each SASS loop's factor is that of the PTX loop it comes from (what Triton's
`loop_unroll_factor`, NVVM or LLVM unrolled before the PTX) times ptxas' (the copies of each PTX
line in one trip). The PTX loop's: beside a remainder PTX loop, the census' ratio to it; alone,
the step of the induction its back branch tests over the source's step (a counter stepping by
2 over `range(8)`: x2), kept to what divides the census' count of the PTX body (a counter
rescaled to bytes steps by the block); else Triton's own factor (its TTIR), else 1. ptxas'
copies are counted on the statement's own code: an inner rolled loop's trips outside its SASS
loops (a peeled first trip, leftover trips run straight) are no copies of the outer body (a
body of nothing but inner loops is read with them). The main SASS loop is the one of the
largest factor; those of smaller factor are its remainder loops (Triton's and ptxas' alike);
the body's math beside the main loop is a straight-line remainder. But where Triton's TTIR
holds the statement's loop unrolled and the remainder loop it put after it, only a SASS loop
whose PTX loop measures at Triton's factor can be the main one (ptxas leaves the loop Triton
pipelined, `num_stages=3`, as it is and unrolls the remainder x4: the larger factor is the
remainder's); with none, the factor is unknown. Without the TTIR, where the SASS loop of the
largest factor comes from a PTX loop unrolled less than another's, the factor is unknown too.

Bounds that are a Triton kernel's constexprs are read with their compiled values, in the
kernel's own function (`files.python_constexprs`): `tl.static_range(STAGES)` has STAGES copies.

How it can be wrong: a PTX loop unrolled with no remainder loop beside it, whose counter's step
is no number over the source's (`range(0, K, BLOCK_K)` with no constexprs known: a recorded
program), reads as not unrolled; a program without its TTIR (a recording of PTX and cubin
alone) takes the largest factor for the main loop where the PTX loops' factors do not
contradict it; an outer body with no math or memory of its own beside its inner rolled loops
is read by their straight-line trips (three read x3), as before; a request
written with a name (`loop_unroll_factor=UNROLL`, a constexpr) is not read; the DSL's helpers
have no call chain, so a helper called twice has one entry with both sites' code; a fully
unrolled loop without constant bounds has no copies measured.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from math import gcd
from typing import Any

from sassview.analyses.base import AnalysisContext, Findings
from sassview.analyses.loops.census import Census
from sassview.analyses.loops.entry import ExtraKey, LoopEntry
from sassview.analyses.loops.files import SourceFiles
from sassview.analyses.loops.listing import chained_sources, ptx_listing
from sassview.analyses.loops.measure import Measure
from sassview.analyses.loops.tree import STATEMENT, Key
from sassview.analyses.tile_loops import TritonLoop, divides_most, triton_loops
from sassview.frontends import registry
from sassview.graph.loops import Loop
from sassview.ir import PtxInstruction


def run(ctx: AnalysisContext) -> Findings:
    locs = {src for src in ctx.shared(chained_sources) if src is not None}
    files = SourceFiles(ctx, {f.file for loc in locs for f in loc.frames()})
    return _TileCensus(ctx, files).findings()


class _TileCensus(Census):
    """The census with the factors of tile languages (see the module docstring)."""

    def __init__(self, ctx: AnalysisContext, files: SourceFiles) -> None:
        self._ptx_measure: tuple[Measure, dict[int, PtxInstruction]] | None = None
        self._before: dict[Key, int | None] = {}
        self._mlir: dict[int, list[TritonLoop]] | None = None
        super().__init__(ctx, files)

    def holder(self, code: list[int]) -> Key | None:
        """The deepest entry holding all of `code`; where the code has no common entry (the
        CuTe DSL names a helper's lines with no call chain: a K loop's body calls helpers with
        loops of their own), the one of the outermost statement that may be a loop whose
        entries hold the most distinct source lines of it, the others' being its helpers'."""
        found = super().holder(code)
        if found is not None:
            return found
        lines: dict[Key, set[int]] = {}
        for i in code:
            k, src = self.key[i], self.sources[i]
            root = self.tree.ancestors(k)[-1] if k is not None else None
            if root is not None and src is not None and self.can_hold(root):
                lines.setdefault(root, set()).add(src.line)
        ranked = sorted(((len(v), k) for k, v in lines.items()), reverse=True)
        if not ranked or (len(ranked) > 1 and ranked[0][0] == ranked[1][0]):
            return None
        root = ranked[0][1]
        keys = (k for i in code if (k := self.key[i]) is not None and root in self.tree.around(k))
        return self.tree.lca(keys)

    def measured_copies(self, key: Key, factors: dict[Key, int | None]) -> int | None:
        """Unknown: without constant bounds the copies of a tile language's loop cannot be told
        from the instructions of one copy (a `cute.gemm` of two WGMMAs twice reads as four
        copies: hopper_gemm.py's 4-step K loop, whose 6 HGMMA ptxas kept at its line, read 6)."""
        return None

    def _ir_unrolls(self) -> bool:
        """Does the frontend unroll loops in its own IR (Triton, Gluon: its TTIR says how)?"""
        frontend = registry.spec(self.ctx.program.artifacts.kind)
        return frontend is not None and frontend.ir_unrolls

    def _entry(self, key: Key, *args: Any) -> LoopEntry:
        entry = super()._entry(key, *args)
        if self._ir_unrolls():
            # `triton_factor`: schema 1's key for the copies Triton made, kept (docs/json.md)
            made: tuple[tuple[ExtraKey, int | None], ...] = ()
            if entry.kind == "rolled":
                made = (("triton_factor", entry.ptx_factor),)
            entry = replace(entry, unroller="Triton", extra=made)
        return entry

    def factor(
        self, key: Key, loops: list[Loop], copies: dict[Key, int | None]
    ) -> tuple[int | None, Loop, list[Loop], bool]:
        rated = []
        for lp in loops:
            before = self._ptx_factor(key, lp)
            ptxas = self._ptxas_factor(key, lp)
            total = before * ptxas if before and ptxas else None
            rated.append((total, before, lp))
        made = self._triton_unrolled(key)
        mains = rated if made is None else [r for r in rated if r[1] == made]
        if made is None and self._ir_unrolls() and _rankings_disagree(rated):
            mains = []  # no TTIR settles which loop is main (`_rankings_disagree`)
        if not mains:  # no SASS loop is the one Triton unrolled: which is main is not known
            first = min(loops, key=lambda lp: lp.first_address)
            self.versions[key], self._before[key] = [], None
            return None, first, [lp for lp in loops if lp is not first], False
        f, before, main = max(mains, key=lambda r: (r[0] or 0, -r[2].first_address))
        rest = [
            lp
            for g, b, lp in rated
            if lp is not main and ((g or 0) < (f or 0) or (made is not None and b != made))
        ]
        self.versions[key] = [lp for _, _, lp in rated if lp is not main and lp not in rest]
        self._before[key] = before
        return f, main, rest, (f or 1) > 1 and not rest and self._beside(key, main)

    def _beside(self, key: Key, main: Loop) -> bool:
        """Whether math or memory of the statement's body runs beside its main loop (in the
        loop around it, or outside every loop): NVVM's remainder, unrolled straight."""
        outer = self.listing.loops[main.parent] if main.parent is not None else None
        for i in self.region(outer):
            k = self.key[i]
            inside = k is not None and key in self.tree.around(k)
            if inside and self.role[i] != STATEMENT and self.listing.weight(self.ins[i])[0] > 0:
                return True
        return False

    def _nvvm_factors(self) -> dict[Key, int | None]:
        return dict(self._before)

    def _ptxas_factor(self, key: Key, loop: Loop) -> int | None:
        """What ptxas unrolled: the copies of each PTX line of the statement's code in one
        trip (memory first, else math, else all), the largest number dividing most."""
        counts: Counter[tuple[str, int, int]] = Counter()
        nested: Counter[tuple[str, int, int]] = Counter()
        for i in self.region(loop):
            k, ins = self.key[i], self.ins[i]
            line = self.listing.ptx_lines[i] if self.listing.ptx_lines else None
            if k is None or line is None or key not in self.tree.around(k):
                continue
            kind, _ = self.listing.weight(ins)
            if kind >= 0:
                # an inner rolled loop's peeled or straight-line trips: no copies of this body
                own = nested if self._in_rolled_nest(k, key) else counts
                own[(ins.opcode, line, kind)] += 1
        counts = counts or nested  # a body of nothing but inner loops: read them, as before
        for kind in (1, 2, 0):  # memory first: ptxas fuses a PTX mul and add into one FFMA
            chosen = [n for p, n in counts.items() if p[2] == kind]
            if chosen:
                return divides_most(chosen)
        return None

    def _in_rolled_nest(self, k: Key, key: Key) -> bool:
        """Whether code at entry `k` lies in a rolled statement nested in `key` (one with SASS
        loops of its own, measured before `key`): what it has outside its loops is its own
        remainder or peeled trips, not copies of `key`'s body (a runtime inner loop's 3
        straight-line trips read an outer loop of one trip as x3)."""
        for around in self.tree.ancestors(k):
            if around == key:
                return False
            if around in self.groups:
                return True
        return False

    def _ptx(self) -> tuple[Measure, dict[int, PtxInstruction]] | None:
        """The census' measure over the PTX (NVVM's side), built once."""
        if self._ptx_measure is None:
            listing = ptx_listing(self.ctx)
            if listing is None:
                return None
            function = self.ctx.kernel.ptx
            by_line = {i.line: i for i in function.instructions} if function else {}
            self._ptx_measure = (Measure(listing, self.tree, self.asm), by_line)
        return self._ptx_measure

    def _ptx_factor(self, key: Key, loop: Loop) -> int | None:
        """The factor of the PTX loop the SASS loop's back branch comes from: beside a remainder
        loop, the census' ratio; alone, the greatest common divisor of its induction's step
        (over the source's) and the census' count, both multiples of it (a counter rescaled to
        bytes, a tile operation of many instructions); else Triton's own; else 1."""
        found = self._ptx()
        if found is None:
            return 1
        ptx, by_line = found
        latch = max(loop.latches)
        line = self.listing.ptx_lines[self.listing.cfg.blocks[latch].last]
        around = [p for p in ptx.listing.loops if line in p.addresses]
        if line is None or not around:
            return 1  # ptxas made this loop (a remainder of its own unrolling)
        ptx_loop = max(around, key=lambda p: p.depth)
        group = ptx.groups.get(key, [])
        if ptx_loop in group and len(group) > 1:
            f, main, _, _ = ptx.factor(key, group, self.copies)
            return f if ptx_loop is main else 1
        count = ptx.factor(key, [ptx_loop], self.copies)[0] if ptx_loop in group else None
        step = _counter_step(ptx_loop, by_line)
        source = self.tree.loop(key).step
        if step and source and step % source == 0:
            return gcd(step // source, count) if count else step // source
        made = self._triton_factor(key)
        return made if made is not None else 1

    def _triton_factor(self, key: Key) -> int | None:
        """Triton's own factor for a statement of the main file not inlined, when its TTIR
        holds one loop on that line beside any remainder (`tile_loops.triton_loops`)."""
        found = [t for t in self._ttir_loops(key) if not t.remainder]
        return found[0].factor if len(found) == 1 else None

    def _triton_unrolled(self, key: Key) -> int | None:
        """Triton's factor where its TTIR holds the statement's loop unrolled (by more than 1)
        and the remainder loop it put after it: only a SASS loop from the PTX loop of that
        factor can be the statement's main loop (ptxas may unroll the remainder more than
        the main loop Triton pipelined). None where the TTIR says no such thing."""
        loops = self._ttir_loops(key)
        found = self._triton_factor(key)
        return found if found and found > 1 and any(t.remainder for t in loops) else None

    def _ttir_loops(self, key: Key) -> list[TritonLoop]:
        """The TTIR's loops at the statement's line (`tile_loops.triton_loops`), for Triton's
        statements of the main file not inlined; none for the others."""
        art = self.ctx.program.artifacts
        if not self._ir_unrolls() or key[2] or key[0] != self.files.main:
            return []
        if self._mlir is None:
            self._mlir = triton_loops(art.stages, self.files.main)
        return self._mlir.get(self.tree.loop(key).line, [])


def _rankings_disagree(rated: list[tuple[int | None, int | None, Loop]]) -> bool:
    """Whether the SASS loop of the largest factor comes from a PTX loop unrolled less than
    another's: ptxas unrolled a remainder more than the loop before it was unrolled (Triton's
    pipelined loop at x2, its remainder x4 by ptxas). Only the TTIR tells which is main."""
    if len(rated) < 2 or any(total is None or before is None for total, before, _ in rated):
        return False
    top = max(rated, key=lambda r: (r[0] or 0, -r[2].first_address))
    return (top[1] or 0) < max(before or 0 for _, before, _ in rated)


def _counter_step(loop: Loop, by_line: dict[int, PtxInstruction]) -> int | None:
    """|immediate| of the `add R, R, imm` whose R the loop's last conditional branch tests."""
    lines = sorted(loop.addresses)
    lines = [n for n in lines if n in by_line]
    # The last conditional branch: the back edge, or the exit test before a `bra.uni` back
    branch = next(
        (by_line[n] for n in reversed(lines) if by_line[n].opcode == "bra" and by_line[n].guard),
        None,
    )
    if branch is None or branch.guard is None:
        return None
    setp = next(
        (
            by_line[n]
            for n in reversed(lines)
            if by_line[n].opcode == "setp" and by_line[n].operands[:1] == (branch.guard,)
        ),
        None,
    )
    if setp is None:
        return None
    for n in lines:
        ins = by_line[n]
        ops = ins.operands
        if (
            ins.opcode == "add"
            and len(ops) == 3
            and ops[0] == ops[1]
            and ops[0] in setp.operands[1:]
        ):
            try:
                return abs(int(ops[2], 0))
            except ValueError:
                return None
    return None
