"""Loop unrolling: how many source iterations one trip through each SASS loop runs, and whether
that is what the source asked for.

All architectures. CUDA C++ is answered by the loop census (`sassview.analyses.loops.census`),
Triton and the CuTe DSL by its Python form (`loops.python`): one typed entry per loop statement
per inline context. This module answers the rest, a PTX file or a bare cubin, whose loops are
reported by the line the loop finder gives them, in the same record (`loops.entry.LoopEntry`)
and the same words (`loops.findings.describe`). The only request PTX knows is
`.pragma "nounroll"`, checked against what ptxas itself did (the copies of each PTX line).

The factor: the largest number dividing the copies of most source lines in one trip (the
loop's blocks minus those of loops nested in it); with several SASS loops on a line, the
smallest is one iteration's worth and the others are ratios to it, those with a smaller factor
being remainder loops. The smallest one's own reading multiplies the ratio only where it is one
or ptxas' own copies of each PTX line (`_iterations`), and a x1 reading stands only where no
line reaches memory through one base register at two offsets (`_copies_by_offset`): else the
factor is unknown.

A factor above 1 with no remainder loop beside it is unknown: per-line counts cannot tell an
unroll from a body holding two of a pattern (two `expf`, a max and a sum shuffle) or a vector
access counted in words (one `LDG.E.128` a trip reads as 4), and with no source compiled here
there is no rolled build to ask (loops/rolled.py). Measured on tests/data/loops/copies.cu's
cubins read as they are: every such factor there was wrong (x4 for one int4 copy a trip, x2 for
the online softmax, x3 to x128 for rolled K loops).

How it can be wrong: loop versioning (two full copies) reports one as the main loop and the
other as neither; a remainder ptxas unrolled by as many as its PTX body holds of a pattern
reads as that many iterations; an unrolled loop whose copies' loads merged into one wide
access and whose math branches still reads x1.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import PurePath

from sassview.analyses.base import AnalysisContext, Findings
from sassview.analyses.loops.entry import LoopEntry, UnrollFacts
from sassview.analyses.loops.findings import describe
from sassview.analyses.loops.weights import weight as _weight
from sassview.analyses.memory import line_keys
from sassview.analyses.tensor_cores import path_of
from sassview.analyses.tile_loops import divides_most
from sassview.frontends import registry
from sassview.graph.loops import Loop
from sassview.ir import OperandKind, PtxFunction, SassInstruction
from sassview.parse.inline_asm import CallSites
from sassview.parse.source_loops import Request

_C_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp")
Counts = Counter[tuple[str, int, int]]  # (opcode, line, kind: see _weight) -> count


def _pool(keys: Iterable[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """The pairs to trust: math if any, else memory, else all."""
    keys = list(keys)
    return [k for k in keys if k[2] == 2] or [k for k in keys if k[2] == 1] or keys


def _factor(counts: Counts) -> int | None:
    """The largest number that divides the counts of most (more than half of) the pairs."""
    if not counts:
        return None
    return divides_most([counts[k] for k in _pool(counts)])


def _ratio(counts: Counts, ref: Counts) -> int | None:
    """The most common whole ratio of `counts` to `ref` over the pairs both have."""
    shared = _pool(k for k in counts if k in ref)
    ratios = Counter(counts[k] // ref[k] for k in shared if counts[k] % ref[k] == 0)
    return max(ratios, key=lambda r: (ratios[r], r)) if ratios else None


def _count(
    instructions: tuple[SassInstruction, ...],
    indices: Iterable[int],
    line_of: Callable[[int], int | None],
    widths: bool = True,
) -> Counts:
    """Instructions per (opcode, line, kind); with `widths`, a memory access counts its width
    in 32-bit words (source lines merged into one wide access). Without, each counts 1: the
    copies of a PTX instruction, which already has its width."""
    counts: Counts = Counter()
    for i in indices:
        if "SpillRefill" in instructions[i].marks:
            continue  # register-allocator traffic, not a copy of the source statement
        line = line_of(i)
        if line is not None:
            kind, weight = _weight(instructions[i])
            counts[(instructions[i].opcode, line, kind)] += weight if widths else 1
    return counts


def _ptx_line(instructions: tuple[SassInstruction, ...]) -> Callable[[int], int | None]:
    return lambda i: instructions[i].ptx_line


def _copies_by_offset(
    instructions: tuple[SassInstruction, ...],
    indices: list[int],
    line_of: Callable[[int], int | None],
) -> bool:
    """Whether a trip read as one iteration accesses memory at one line through one base
    register at two offsets or more (`[R2.64]` and `[R2.64+0x4]`): the copies of an unrolled
    body, or a stencil's neighbours; the per-line counts cannot tell them apart. An unrolled
    body whose math branches (an `if` in it, ptxas giving one side's multiply the other's
    line) reads as x1 by its math where the loop was unrolled by 2 and its loads say so."""
    offsets: dict[tuple[str, int, str], set[int]] = {}
    for i in indices:
        ins, line = instructions[i], line_of(i)
        if line is None or _weight(ins)[0] != 1:
            continue
        for op in ins.operands:
            if op.kind is OperandKind.MEMORY and op.registers:
                base = op.registers[0]
                key = (ins.opcode, line, f"{base.file}{base.index}")
                offsets.setdefault(key, set()).add(op.offset or 0)
    return any(len(found) > 1 for found in offsets.values())


def _ptxas_copies(instructions: tuple[SassInstruction, ...], indices: list[int]) -> int | None:
    """ptxas' own copies of each PTX line in one trip (None without PTX lines)."""
    counts = _count(instructions, indices, _ptx_line(instructions), widths=False)
    return _factor(counts) if counts else None


def _measure(
    loops: list[Loop], counts_of: Callable[[Loop], Counts], ptxas_of: Callable[[Loop], int | None]
) -> tuple[int | None, Loop, list[Loop], str | None]:
    """(factor, main loop, remainder loops, why the factor is unknown) of one source loop.
    `ptxas_of`: ptxas' own copies of each PTX line in one trip of a loop (None without PTX
    lines), which a remainder's reading must match to be its iterations (`_iterations`)."""
    measured = [(_factor(c), lp, c) for lp in loops for c in [counts_of(lp)]]
    doubt = None
    if len(measured) > 1:  # the smallest is one iteration's worth: measure the others against it
        r, ref_loop, ref = min(measured, key=lambda m: sum(c for k, c in m[2].items() if k[2]))
        ptxas = ptxas_of(ref_loop)
        if not _iterations(r, ptxas):
            doubt = _REMAINDER_UNREAD.format(r=r, ptxas=ptxas)
        measured = [
            (r if lp is ref_loop else (_ratio(c, ref) or 0) * (r or 1) or g, lp, c)
            for g, lp, c in measured
        ]
    f, main, _ = max(measured, key=lambda m: (m[0] or 0, -m[1].first_address))
    rest = [lp for g, lp, _ in measured if lp is not main and (g or 0) < (f or 0)]
    if doubt is None or not rest:
        return f, main, rest, None
    return None, main, rest, doubt


# Why a bare cubin's factor is unknown (`LoopEntry.unknown_why`), in few words (a `check` row
# holds every loop's) ending on what would settle it: the source, whose build can be rolled
# and the compiler asked (loops/rolled.py). docs/analyses.md says each at length.
_SETTLE = "the source would settle it"
_REMAINDER_UNREAD = "remainder's lines x{r} a trip, ptxas' x{ptxas}: " + _SETTLE
_NO_REMAINDER = "lines x{f} a trip and no remainder: x{f} or {f} of a pattern; " + _SETTLE
_TWO_OFFSETS = "a line at two offsets of one base: x1 or x2; " + _SETTLE


def _iterations(reading: int | None, ptxas: int | None) -> bool:
    """Whether the smallest loop's own reading (copies of each source line, in words) is its
    iterations a trip, the number the main loop's ratio to it is multiplied by. One stands;
    more stand only where they are ptxas' own copies of each PTX line: a remainder's PTX body
    holding two of a pattern (two `expf` of the softmax, two accumulators' adds) or a vector
    access counted in words (a `float2` load is 2) reads as more than one iteration, and with
    no source compiled there is no rolled build to tell them apart. On the labelled corpora's
    cubins read alone (benchmarks/loop_bare_cubin_accuracy.py) each remainder read above one
    was one iteration: x8 for a x4 softmax, x24 and x16 for x4 loops, x32 for a x4 wmma K
    loop around its 8-copy fragment loop."""
    return reading is None or reading == 1 or reading == ptxas


def _main_file(ctx: AnalysisContext) -> str | None:
    path = ctx.program.artifacts.source_path
    files = ctx.shared(line_keys).files  # instructions per file of their outermost frames
    if path and path in files:
        return path
    return files.most_common(1)[0][0] if files else None


def run(ctx: AnalysisContext) -> Findings:
    artifacts = ctx.program.artifacts
    frontend = registry.spec(artifacts.kind)
    main = _main_file(ctx)
    cxx = (
        bool(artifacts.source_text)
        and main is not None
        and ((frontend is not None and frontend.cxx) or PurePath(main).suffix in _C_SUFFIXES)
    )
    # CUDA C++ held in a kernel.py: scan the C++ alone, kept line-aligned with the Python file.
    if cxx:
        from sassview.analyses.loops import census

        return census.run(ctx)
    # A tile language's statements are tile operations: one `tl.dot` or `cute.gemm` is many
    # instructions by design, so copies per source line would read the tile as an unroll
    # factor (a 64x64 tl.dot is 64 HMMA); the Python census measures its loops by PTX line.
    if frontend is not None and frontend.tile:
        from sassview.analyses.loops import python

        return python.run(ctx)
    return _by_line(ctx)


def _by_line(ctx: AnalysisContext) -> Findings:
    """The loops of a PTX file or bare cubin, one entry per source line (or loop, without)."""
    cfg, instructions = ctx.cfg, ctx.kernel.instructions
    regions: dict[int | None, list[int]] = {}

    def region(loop: Loop | None) -> list[int]:
        """Instruction indices of one trip (no nested loops), or of the code outside all loops."""
        key = loop.index if loop else None
        if key not in regions:
            inner = {k for o in ctx.loops if loop is None or o.parent == key for k in o.blocks}
            blocks = (loop.blocks if loop else {b.index for b in cfg.blocks if b.reachable}) - inner
            spans = (cfg.blocks[k] for k in sorted(blocks))
            regions[key] = [i for b in spans for i in range(b.first, b.last + 1)]
        return regions[key]

    groups: dict[tuple[str, int] | int, list[Loop]] = {}  # (file, line), or a loop without one
    for loop in ctx.loops:
        loc = loop.source
        groups.setdefault(loop.index if loc is None else (loc.file, loc.line), []).append(loop)
    sites = CallSites(ctx.program.ptx.inline_asm if ctx.program.ptx else ())
    found: list[tuple[LoopEntry, Loop, list[Loop]]] = []
    for key, group in groups.items():
        at = key if isinstance(key, tuple) else None

        def other_lines(i: int, at: tuple[str, int] | None = at) -> int | None:
            src = instructions[i].source
            return src.line if src and at and (src.file, src.line) != at else None

        f, loop, rest, why = _measure(
            group,
            lambda lp: _count(instructions, region(lp), other_lines),
            lambda lp: _ptxas_copies(instructions, region(lp)),
        )
        if f is not None and f > 1 and not rest:
            # no source to roll and ask (loops/rolled.py): see the module's docstring
            f, why = None, _NO_REMAINDER.format(f=f)
        if f == 1 and not rest and _copies_by_offset(instructions, region(loop), other_lines):
            f, why = None, _TWO_OFFSETS  # one iteration or two: see _copies_by_offset
        requested, ptxas = _ptx_request(ctx, region(loop))
        entry = LoopEntry(
            line=at[1] if at else None,
            file=at[0] if at else None,
            kind="rolled",
            factor=f,
            unknown_why=why,
            remainder=bool(rest),
            requested=requested,
            requested_by="ptx",
            depth=loop.depth,
            # A loop all of whose code is inline asm (an mbarrier wait) is no loop statement.
            statement=not _all_inline_asm(sites, instructions, region(loop)),
            # the main loop, then those as unrolled as it (a helper's loop at two call sites,
            # which a listing without inline chains gives one line): each is named apart
            sass_loops=(
                loop.index,
                *(lp.index for lp in group if lp is not loop and lp not in rest),
            ),
            remainder_loops=tuple(lp.index for lp in rest),
            back_edges=loop.back_edges,
            blocks=tuple(sorted(loop.blocks)),
            first_address=loop.first_address,
            instructions=len(loop.addresses),
            tensor_ops=_tensor_ops(instructions, loop.addresses),
            extra=(("ptxas_factor", ptxas),) if requested is not None else (),
        )
        found.append((entry, loop, rest))
    found.sort(key=lambda e: (e[0].line is None, e[0].line or 0, e[0].first_address or 0))
    notes = [n for entry, loop, rest in found for n in describe(entry, loop.addresses, rest)]
    entries = tuple(e for e, _, _ in found)
    return Findings(
        facts=UnrollFacts(loops=[e.to_json() for e in entries], entries=tuple(entries)),
        annotations=tuple(notes),
    )


def _tensor_ops(instructions: tuple[SassInstruction, ...], addresses: Iterable[int]) -> int:
    """The MMA instructions (`tensor_cores.path_of`) of one trip of the main loop, as the
    census counts a rolled entry's."""
    at = {ins.address: ins.opcode for ins in instructions}
    return sum(1 for a in addresses if path_of(at.get(a, "")) is not None)


def _ptx_request(ctx: AnalysisContext, indices: list[int]) -> tuple[Request, int | None]:
    """A PTX `.pragma "nounroll"` on this loop: requested 1, and the factor ptxas applied (copies
    of each PTX line's instructions in one trip). The pragma's loop is the one that branches back
    to the label just before it, or failing that whose code holds the first PTX instruction
    after it (ptxas may fold that one into others)."""
    ptx, ins = ctx.kernel.ptx, ctx.kernel.instructions
    if ptx is None or not ptx.pragmas:
        return None, None
    lines = {ins[i].ptx_line for i in indices if ins[i].ptx_line is not None}
    starts = sorted(p.line for p in ptx.instructions)
    for at, text in ptx.pragmas:
        if text.strip('"') != "nounroll":
            continue
        k = bisect_right(starts, at)
        back = _branch_back_to(ptx, at)
        if (back is not None and back in lines) or (k < len(starts) and starts[k] in lines):
            return 1, _factor(_count(ins, indices, _ptx_line(ins), widths=False))
    return None, None


def _branch_back_to(ptx: PtxFunction, line: int) -> int | None:
    """The PTX line of the last branch after `line` to the last label at or before it."""
    label = max(((at, name) for name, at in ptx.labels.items() if at <= line), default=None)
    if label is None:
        return None
    branches = [
        p.line
        for p in ptx.instructions
        if p.opcode == "bra" and p.line > line and label[1] in p.operands
    ]
    return branches[-1] if branches else None


def _all_inline_asm(
    sites: CallSites, instructions: tuple[SassInstruction, ...], indices: list[int]
) -> bool:
    """Whether every instruction of `indices` with a PTX line comes from inside inline asm."""
    lines = [n for i in indices if (n := instructions[i].ptx_line) is not None]
    return bool(sites) and bool(lines) and all(map(sites.inside, lines))
