"""Copies of a loop body, asked of the compiler: the census' counts checked against builds of
the same source with some loops kept rolled (frontends/cuda_rolled.py, `#pragma unroll 1`).

Two builds: one with the loops of odd nesting depth (in their file) rolled, one with the even
ones. A rolled loop's one trip runs its body once: the math and memory at its own lines
(nested loops aside), by (opcode, line, inline chain), weighed alike (`weights.weight`: an
LDG.E.128 is 4 words in every build, so a float4 copy is one copy, not four), is one
iteration's signature (`iteration`). In the other build the same loop is as written between
rolled ones: its own lines' count over one trip of the loop around it, over that signature,
are the copies of its body the compilers made (`copies_here`), each level of a nest apart (an
8x8 tile is 8 and 8, not 64 to split); a level with no code of its own (`for m` around `for
n`) makes one SASS loop of its rolled child per copy.

The real build decides: a full entry's copies stand only where its own count over one
iteration's, over one trip of the real loop around it, is those copies times the executions
of its statement there (`Measure.runs`: the copies and factors of the entries between); a
level with no code of its own, where a level inside it then holds. A rolled entry's factor is
its own count in one trip of its main SASS loop over one iteration's.

The census asks only where its counting cannot decide (`open_entries`): a full entry with no
count, or one counted over memory wider than a word; a rolled one with no factor, or read as
unrolled with nothing left over (what two of a pattern in one iteration, two `expf`, a max and
a sum shuffle, loads of two arrays, is misread as). What this settles is marked on the entry
(`decided_by`).

How it can be wrong, and then says nothing: an entry the rolled build did not keep as exactly
one SASS loop (deleted, unrolled despite the pragma), or a level whose loop around it is of
its own parity (a header's loops called at two depths in one kernel: `Variants` counts its
depths as most of its calls want, `settle.flips`); a line
the real build folded, hoisted or rematerialised (the most common ratio must hold on more
than half of the lines both builds have, math where there is math, else memory). A level's
copies where the compilers unroll a loop differently once the loop around it is rolled (read
in the real build: the check above fails, and the entry stays unknown). The rolled builds run
for compiles of a file, NVRTC or nvcc, `--instantiate` included, by the compiler of the real
build (a stored toolchain's NVRTC for its builds), and for C++ held in a kernel.py
(frontends/cuda_rolled.py, cuda_rolled_nvcc.py); not for a cubin or PTX given as it is.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from sassview.analyses.base import AnalysisContext
from sassview.analyses.loops.files import SourceFiles
from sassview.analyses.loops.listing import Listing, chained_sources, sass_listing
from sassview.analyses.loops.measure import Measure
from sassview.analyses.loops.tree import Key, Tree
from sassview.graph.loops import Loop
from sassview.ir import Artifacts, Program, SourceLoc
from sassview.memo import Memo

# (opcode, weight kind, file, line, call sites): a line's instructions, columns left out (the
# pragma moves the columns of a loop's own line)
Flips = Mapping[str, int]  # file -> 1 where its loops' depths count one more (`Variants`)
Signature = Counter[tuple[str, int, str, int, tuple[tuple[str, int], ...]]]
log = logging.getLogger("sassview")
DECIDED_BY = "rolled build"  # `LoopEntry.decided_by` of what this module settled


def undecided(factor: int | None, remainder: bool) -> bool:
    """Whether the census' counting leaves a rolled entry open: no factor, or an unroll read
    with nothing left over beside it (what a body holding two of a pattern reads as)."""
    return factor is None or (factor > 1 and not remainder)


def own_signature(side: Measure, indices: Iterable[int], key: Key) -> Signature:
    """The math and memory of `key`'s own code among `indices` (nested entries' aside)."""
    out: Signature = Counter()
    for i in indices:
        if side.key[i] != key or i in side.uncounted:
            continue
        ins = side.ins[i]
        kind, n = side.listing.weight(ins)
        src = side.sources[i]
        if kind < 1 or src is None:
            continue
        sites = tuple((f.file, f.line) for f in src.frames())[1:]
        out[(ins.opcode, kind, src.file, src.line, sites)] += n
    return out


def copies_ratio(real: Signature, one: Signature | None) -> int | None:
    """The whole number of copies of `one` that `real` holds: over math lines if both have
    math, else memory; the most common ratio over the lines both have, where it holds on more
    than half of them; else None."""
    if not one:
        return None
    for kind in (2, 1):
        a = {p: n for p, n in real.items() if p[1] == kind}
        b = {p: n for p, n in one.items() if p[1] == kind}
        both = [p for p in a if p in b]
        if not both:
            continue
        ratios = Counter(a[p] // b[p] for p in both if a[p] % b[p] == 0)
        if not ratios:
            return None
        best, agree = max(ratios.items(), key=lambda r: (r[1], r[0]))
        return best if 2 * agree > len(both) and best > 0 else None
    return None


def _no_candidates(loop: Loop) -> list[SourceLoc]:
    return []


def _rechained(sources: Sequence[SourceLoc | None], main: str | None) -> list[SourceLoc | None]:
    """The locations with a lost inline chain given back: a header line with no call site,
    where every other instruction of that line has one and the same (the rolled builds' line
    tables drop it from math merged across a helper's copies: the FFMA of a micro-kernel's
    rolled `for n`)."""
    chains: dict[tuple[str, int], set[SourceLoc | None]] = {}
    for src in sources:
        if src is not None and src.inlined_at is not None:
            chains.setdefault((src.file, src.line), set()).add(src.inlined_at)
    out: list[SourceLoc | None] = []
    for src in sources:
        if src is not None and src.inlined_at is None and src.file != main:
            found = chains.get((src.file, src.line), set())
            if len(found) == 1:
                src = src._replace(inlined_at=next(iter(found)))
        out.append(src)
    return out


class _RolledMeasure(Measure):
    """A rolled build's measure, where a SASS loop goes to the loop statement the build rolled
    that holds its math and memory: the deepest entry holding those, or the nearest one
    around it of the parity this build rolls (up to the entry holding all its code). Its
    integer and address code is what the compilers move between a nest's loops (`A += BK` of
    a K loop computed in the loop inside it); its math may all be a level inside that this
    build left as written (the `for n` unrolled in a rolled `for m`)."""

    def __init__(self, listing: Listing, tree: Tree, parity: int, flips: Flips) -> None:
        self.parity, self.flips = parity, flips
        super().__init__(listing, tree)

    def holder(self, code: list[int]) -> Key | None:
        everything = super().holder(code)
        weighed = [i for i in code if self.listing.weight(self.ins[i])[0] >= 1]
        inner = super().holder(weighed) if weighed else None
        if inner is None or everything is None:
            return everything
        for k in self.tree.ancestors(inner):
            if (self.tree.loop(k).depth + self.flips.get(k[0], 0)) % 2 == self.parity:
                return k
            if k == everything:
                break
        return inner


class RolledSide:
    """One rolled build of a kernel, measured like the real one."""

    def __init__(self, ctx: AnalysisContext, parity: int, flips: Flips) -> None:
        frames = {f.file for s in ctx.shared(chained_sources) if s for f in s.frames()}
        files = SourceFiles(ctx, frames)
        # Each SASS loop to the deepest entry holding its code, not to the statement its
        # back-edge compare names: in a build where every loop it measures is rolled, each
        # has its own SASS loop, and a compare ptxas shares names the loop around it.
        listing = sass_listing(ctx, files)
        sources = _rechained(listing.sources, files.main)
        listing = replace(listing, candidates=_no_candidates, sources=sources)
        self.side = _RolledMeasure(listing, Tree(files), parity, flips)

    def copies_of_loop(self, key: Key) -> list[int] | None:
        """The indices of `key`'s SASS loops, where this build kept it rolled: one loop, or
        one per copy of a level around it that this build left as written."""
        loops = self.side.groups.get(key)
        return [lp.index for lp in loops] if loops else None

    def _alike(self, each: list[Signature]) -> Signature | None:
        """The one signature every copy shows, or None where copies differ."""
        return each[0] if each and all(e == each[0] for e in each) and each[0] else None

    def iteration(self, key: Key) -> Signature | None:
        """One iteration's signature of a loop this build rolled (alike in every copy)."""
        found = self.copies_of_loop(key)
        if found is None:
            return None  # deleted, or unrolled despite the pragma: no signature
        side = self.side
        return self._alike(
            [own_signature(side, side.region(side.listing.loops[i]), key) for i in found]
        )

    def copies_here(self, key: Key, one: Signature | None) -> int | None:
        """Copies of a loop this build left as written inside a rolled one (or outside every
        loop): its own count over one trip there, over `one`; with no code of its own, the
        SASS loops of its rolled children there. Alike in every copy of the loop around."""
        side = self.side
        if key in side.groups:
            return None  # still a loop: not what the real build made of it
        parent = side.tree.parent(key)
        around = self.copies_of_loop(parent) if parent is not None else [None]
        if around is None:
            return None
        found = set()
        for at in around:
            loop = side.listing.loops[at] if at is not None else None
            own = own_signature(side, side.region(loop), key)
            if own:
                found.add(copies_ratio(own, one))
                continue
            children = {c for c in side.groups if c != key and side.tree.parent(c) == key}
            found |= {sum(1 for lp in side.groups[c] if lp.parent == at) for c in children}
        return found.pop() if len(found) == 1 and not {None, 0} & found else None


# A rolled build of a program's artifacts (parity 1: odd depths rolled, 0: even; `Flips`: the
# files whose depths count one more): a seam the tests replace with their recorded builds.
Builder = Callable[[Artifacts, int, Flips], Artifacts | None]


def _compile(artifacts: Artifacts, parity: int, flips: Flips) -> Artifacts | None:
    from sassview.frontends.cuda_rolled import rolled_build

    return rolled_build(artifacts, parity, flips)


build_variant: Builder = _compile
_PROGRAMS: Memo[tuple[object, ...], Program | None] = Memo("rolled-programs", 64)


class Variants:
    """The two rolled builds of one kernel, each built (and measured) when first asked. A
    loop's depth, for its parity, is its nesting depth in its file, one more in the files of
    `flips` (a header whose outermost loops are called inside a loop of the main file's same
    depth: the loop around them must be of the other parity)."""

    def __init__(self, ctx: AnalysisContext, flips: Flips) -> None:
        self.ctx, self.flips = ctx, flips
        self._sides: dict[int, RolledSide | None] = {}

    def made(self) -> bool:
        """Whether a rolled build was asked for and made."""
        return any(side is not None for side in self._sides.values())

    def depth(self, tree: Tree, key: Key) -> int:
        return tree.loop(key).depth + self.flips.get(key[0], 0)

    def side(self, parity: int) -> RolledSide | None:
        if parity not in self._sides:
            self._sides[parity] = _side(self.ctx, parity, self.flips)
        return self._sides[parity]

    def iteration(self, key: Key, depth: int) -> Signature | None:
        """One iteration's signature, from the build that rolls loops of `depth`'s parity."""
        side = self.side(depth % 2)
        return side.iteration(key) if side else None

    def copies(self, key: Key, depth: int, parent_depth: int | None) -> int | None:
        """The copies of a level, from the build leaving it as written inside a rolled one."""
        if parent_depth is not None and parent_depth % 2 == depth % 2:
            return None  # the loop around it is as written too: its copies would be counted
        side = self.side(1 - depth % 2)
        return side.copies_here(key, self.iteration(key, depth)) if side else None


def _side(ctx: AnalysisContext, parity: int, flips: Flips) -> RolledSide | None:
    art = ctx.program.artifacts
    ident = (
        art.source_path,
        art.source_text,
        art.stages.get("cuda_source"),  # two strings of one kernel.py share the rest
        art.options,
        art.arch,
        art.inputs,
        parity,
        tuple(sorted(flips.items())),
        build_variant,
    )
    if ident not in _PROGRAMS:
        if len(_PROGRAMS) > 8:  # one program's builds at a time: its kernels ask in a row
            _PROGRAMS.clear()
        from sassview.build import build_program
        from sassview.errors import SassviewError

        try:
            variant = build_variant(art, parity, flips)
            _PROGRAMS[ident] = build_program(variant) if variant is not None else None
        except SassviewError as exc:  # no evidence, not a failed check: the counts stand
            log.info("rolled build: none for %s (%s)", art.source_path, exc)
            _PROGRAMS[ident] = None
    program = _PROGRAMS[ident]
    if program is None:
        return None
    kernel = next((k for k in program.kernels if k.name == ctx.kernel.name), None)
    if kernel is None:
        return None
    from sassview.graph.cfg import build_cfg
    from sassview.graph.loops import find_loops

    cfg = build_cfg(kernel.instructions)
    there = AnalysisContext(program, kernel, cfg, find_loops(cfg, kernel.instructions), None)  # type: ignore[arg-type]
    return RolledSide(there, parity, flips)
