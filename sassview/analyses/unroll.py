"""Loop unrolling: how many source iterations one trip through each SASS loop runs, and whether
that is what the source asked for.

All architectures. CUDA C++ is answered by the loop census (`sassview.analyses.loops.census`):
one typed entry per loop statement per inline context, headers included. This module answers
the rest, and hands its entries over in the same record (`loops.entry.from_facts`): PTX,
Triton, the CuTe DSL and bare cubins, whose loops are reported by the line the loop finder
gives them. The only request PTX knows is `.pragma "nounroll"`, checked against what ptxas
itself did. Triton and the CuTe DSL write tile operations, one statement of many
instructions: their loops are measured by PTX line (the copies of each PTX instruction in one
trip: what ptxas unrolled), and loops on one line are told apart by the PTX branch they loop
back with. Triton's own unrolling (`loop_unroll_factor`) is read from its MLIR, where each copy
of an op keeps the op's location, and multiplies ptxas' factor. The CuTe DSL's NVVM unrolls as
`range(..., unroll=N)` asks and marks the loop nounroll: its request is read from the source,
its factor is the ratio of the unrolled loop to the one-iteration remainder loop beside it
(`_fold_dsl_remainders`). A loop the DSL placed at a function's line goes to the Python loop
statement whose body holds most of its lines (`ast`); a loop of nothing but inline asm is no
loop statement.

The factor: the largest number dividing the copies of most PTX lines in one trip (the loop's
blocks minus those of loops nested in it); with several SASS loops on a line, the smallest is
one iteration's worth and the others are ratios to it, those with a smaller factor being
remainder loops. A Triton or DSL loop statement with numeric bounds, code and no SASS loop is
fully unrolled: its trip count is its copies.

How it can be wrong: loop versioning (two full copies) reports one as the main loop and the
other as neither; a PTX line that becomes several same-opcode instructions with no remainder
loop to compare against reads as a larger factor; the DSL's loops at a function's line are
placed by where most of their code is.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import PurePath
from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.loops.census import weight as _weight
from sassview.analyses.loops.entry import UnrollFacts, from_facts
from sassview.analyses.loops.findings import remainder_note
from sassview.analyses.memory import line_keys
from sassview.analyses.tile_loops import (
    PythonLoops,
    divides_most,
    pair_triton_loops,
    python_loops,
    triton_loops,
)
from sassview.graph.cfg import ControlFlowGraph
from sassview.graph.loops import Loop
from sassview.ir import PtxFunction, SassInstruction, SourceLoc
from sassview.parse.inline_asm import CallSites
from sassview.parse.source_loops import Request

_C_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".h", ".hpp")
Counts = Counter[tuple[str, int, int]]  # (opcode, line, kind: see _weight) -> count
# Frontends whose statements are tile operations: one `tl.dot` or `cute.gemm` is many
# instructions by design, so copies per source line would read the tile as an unroll factor
# (a 64x64 tl.dot is 64 HMMA: "unrolled x64"). Their loops are measured by PTX line instead.
_TILE_LANGUAGES = frozenset({"triton", "cute"})


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


def _measure(
    loops: list[Loop], counts_of: Callable[[Loop], Counts]
) -> tuple[int | None, Loop, list[Loop], Counts]:
    """(factor, main loop, remainder loops, the main loop's counts) of one source loop."""
    measured = [(_factor(c), lp, c) for lp in loops for c in [counts_of(lp)]]
    if len(measured) > 1:  # the smallest is one iteration's worth: measure the others against it
        r, ref_loop, ref = min(measured, key=lambda m: sum(c for k, c in m[2].items() if k[2]))
        measured = [
            (r if lp is ref_loop else (_ratio(c, ref) or 0) * (r or 1) or g, lp, c)
            for g, lp, c in measured
        ]
    f, main, counts = max(measured, key=lambda m: (m[0] or 0, -m[1].first_address))
    return f, main, [lp for g, lp, _ in measured if lp is not main and (g or 0) < (f or 0)], counts


def _main_file(ctx: AnalysisContext) -> str | None:
    path = ctx.program.artifacts.source_path
    files = ctx.shared(line_keys).files  # instructions per file of their outermost frames
    if path and path in files:
        return path
    return files.most_common(1)[0][0] if files else None


def run(ctx: AnalysisContext) -> Findings:
    cfg, instructions, artifacts = ctx.cfg, ctx.kernel.instructions, ctx.program.artifacts
    main = _main_file(ctx)
    cxx = (
        bool(artifacts.source_text)
        and main is not None
        and (artifacts.kind == "cuda" or PurePath(main).suffix in _C_SUFFIXES)
    )
    # CUDA C++ held in a kernel.py: scan the C++ alone, kept line-aligned with the Python file.
    if cxx:
        from sassview.analyses.loops import census

        return census.run(ctx)
    tile = artifacts.kind in _TILE_LANGUAGES

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

    loose: dict[tuple[Any, ...] | int, list[Loop]] = {}  # (file, line[, PTX branch]) or loop
    for loop in ctx.loops:
        loc = loop.source
        if loc is None:
            loose.setdefault(loop.index, []).append(loop)
        elif tile:
            # Here one line holds several loops (the DSL puts the loop control it generates at
            # its function's line; one helper's inline-asm wait loop at each call): they are
            # told apart by the PTX branch they loop back with, which ptxas' copies keep.
            branch = _back_branch(loop, cfg, instructions)
            loose.setdefault((loc.file, loc.line, branch), []).append(loop)
        else:
            loose.setdefault((loc.file, loc.line), []).append(loop)

    entries: list[dict[str, Any]] = []
    notes: list[Annotation] = []
    sites = CallSites(ctx.program.ptx.inline_asm if ctx.program.ptx else ())
    statements = python_loops(artifacts.source_text or "") if tile else None
    # Triton unrolls `tl.range(..., loop_unroll_factor=N)` in its own IR: the PTX already holds
    # N copies, which the PTX-line count above does not see. Its MLIR says how many.
    triton = triton_loops(artifacts.stages, main) if artifacts.kind == "triton" else {}
    from_triton = (
        pair_triton_loops(
            triton,
            {
                k: first.first_address
                for k, group in loose.items()
                if isinstance(k, tuple)
                for first in [min(group, key=lambda lp: lp.first_address)]
                if not _all_inline_asm(sites, instructions, region(first))
            },
            main,
        )
        if triton
        else {}
    )
    dsl = artifacts.kind == "cute"
    pending: list[tuple[dict[str, Any], Loop, list[Loop]]] = []

    def in_main(i: int) -> int | None:
        src = instructions[i].source
        return src.line if src is not None and src.file == main else None

    for key, group in loose.items():
        at = (key[0], key[1]) if isinstance(key, tuple) else None
        if at is not None and statements and at[0] == main and at[1] in statements.generated:
            # The DSL puts the control of the loops it lowers at its function's line: the loop
            # statement is the one whose body holds most of the loop's own lines.
            own = {
                src.line
                for i in region(min(group, key=lambda lp: lp.first_address))
                if (src := instructions[i].source) is not None and src.file == main
            }
            line = statements.holding(own - statements.generated)
            at = (at[0], line) if line is not None else at

        def other_lines(i: int, at: tuple[str, int] | None = at) -> int | None:
            src = instructions[i].source
            return src.line if src and at and (src.file, src.line) != at else None

        # Tile languages: the copies of each PTX line, what ptxas did (see _TILE_LANGUAGES).
        line_of = _ptx_line(instructions) if tile else other_lines

        def trip_counts(lp: Loop, line_of: Callable[[int], int | None] = line_of) -> Counts:
            return _count(instructions, region(lp), line_of, widths=not tile)

        f, loop, rest, _ = _measure(group, trip_counts)
        requested, ptxas = _ptx_request(ctx, region(loop))
        before_ptx = False
        if dsl:
            # NVVM writes `nounroll` on every loop once it has unrolled it, as for CUDA C++: the
            # request is the source's `unroll=`, and the copies made by it are in the PTX
            # already, where counting by PTX line does not see them (`_fold_dsl_remainders`).
            marked = requested == 1
            requested = (
                statements.requests.get(at[1])
                if statements is not None and at is not None and at[0] == main
                else None
            )
            before_ptx = marked and requested not in (None, 1)
            if before_ptx:
                f = None
        entry = _entry(
            at[1] if at else None,
            at[0] if at else None,
            loop.depth,
            True,
            f,
            requested,
            bool(rest),
            loop.first_address,
            len(loop.addresses),
            [loop, *rest],
        )
        if requested is not None and not dsl:
            entry["ptxas_factor"] = ptxas
        if before_ptx:
            entry["before_ptx"] = True
        if dsl and requested is not None:
            entry["requested_by"] = "range"  # a keyword of the loop's range call
        made = from_triton.get(key) if isinstance(key, tuple) else None
        if made is not None:
            entry["triton_factor"], entry["triton_remainder"] = made.factor, made.remainder
            if f is not None:
                entry["achieved_factor"] = f * made.factor
        # A loop all of whose code is inline asm (the DSL's and Triton's mbarrier waits) is no
        # loop statement.
        entry["statement"] = not _all_inline_asm(sites, instructions, region(loop))
        pending.append((entry, loop, rest))
    if dsl:
        pending = _fold_dsl_remainders(
            pending, lambda lp: _count(instructions, region(lp), in_main)
        )
    for entry, loop, rest in pending:
        entries.append(entry)
        notes += _describe(entry, loop, rest, False, dsl=dsl)
    if statements is not None:
        looped = {e["source_line"] for e in entries if e["file"] == main}
        for entry, code in _fully_unrolled(statements, looped, instructions, main):
            entries.append(entry)
            notes += _describe(entry, None, [], False, code, dsl=dsl)
    entries.sort(
        key=lambda e: (e["source_line"] is None, e["source_line"] or 0, e["first_address"] or 0)
    )
    return Findings(
        facts=UnrollFacts(loops=entries, entries=tuple(map(from_facts, entries))),
        annotations=tuple(notes),
    )


def _fully_unrolled(
    statements: PythonLoops,
    looped: set[int],
    instructions: tuple[SassInstruction, ...],
    main: str | None,
) -> list[tuple[dict[str, Any], tuple[int, ...]]]:
    """Triton and CuTe DSL loop statements with code in the SASS but no SASS loop: fully
    unrolled (as `unroll_full=True` and `tl.static_range` ask, and as LLVM does to short loops
    by itself). Only those whose bounds are written as numbers: their copies are the trip
    count. Each with the addresses of its code."""
    out = []
    for first, last in statements.spans:
        trips = statements.trips.get(first)
        if trips is None or first in looped:
            continue
        hits = tuple(
            i.address
            for i in instructions
            if i.source is not None and i.source.file == main and first < i.source.line <= last
        )
        if not hits:
            continue
        entry = _entry(
            first,
            main,
            statements.depth(first),
            False,
            trips,
            statements.requests.get(first),
            False,
            hits[0],
            len(hits),
            [],
        )
        if entry["requested_factor"] is not None:
            entry["requested_by"] = "range"
        out.append((entry, hits))
    return out


def _fold_dsl_remainders(
    pending: list[tuple[dict[str, Any], Loop, list[Loop]]],
    counts_of: Callable[[Loop], Counts],
) -> list[tuple[dict[str, Any], Loop, list[Loop]]]:
    """A CuTe DSL loop LLVM unrolled (asked or by itself) leaves two SASS loops on its line:
    the unrolled one and a remainder loop of one iteration a trip. Counted by source line both
    hold the same statements (one tile operation is as many instructions in each), so the
    ratio of their counts is the factor. The two become one entry, as a C++ loop's do."""
    lines: dict[tuple[Any, Any], list[int]] = {}
    for k, (entry, _, _) in enumerate(pending):
        if entry["statement"] and entry["source_line"] is not None:
            lines.setdefault((entry["file"], entry["source_line"]), []).append(k)
    folded: set[int] = set()
    for pair in lines.values():
        if len(pair) != 2:
            continue  # one loop: nothing to compare with; more: versions, not told apart
        counts = [counts_of(pending[k][1]) for k in pair]
        small, big = sorted((0, 1), key=lambda j: sum(counts[j].values()))
        r = _ratio(counts[big], counts[small])
        if not r or r < 2:
            continue
        entry, loop, rest = pending[pair[big]]
        spare, spare_loop, spare_rest = pending[pair[small]]
        entry["achieved_factor"] = r * (spare["achieved_factor"] or 1)
        entry["remainder"] = True
        entry.pop("before_ptx", None)
        entry["remainder_loops"] += [spare_loop.index, *spare["remainder_loops"]]
        pending[pair[big]] = (entry, loop, [*rest, spare_loop, *spare_rest])
        folded.add(pair[small])
    return [p for k, p in enumerate(pending) if k not in folded]


def _entry(
    line: int | None,
    file: str | None,
    depth: int,
    back: bool,
    factor: int | None,
    requested: Request,
    remainder: bool,
    first: int | None,
    count: int,
    loops: list[Loop],
) -> dict[str, Any]:
    return {
        "source_line": line,
        "file": file,
        "depth": depth,
        "has_back_edge": back,
        "achieved_factor": factor,
        "requested_factor": requested,
        "remainder": remainder,
        "first_address": first,
        "instructions": count,
        "statement": True,  # at a loop statement of the source (False: compiler-made)
        "sass_loops": [lp.index for lp in loops[:1]],
        "remainder_loops": [lp.index for lp in loops[1:]],
    }


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


def _back_branch(
    loop: Loop, cfg: ControlFlowGraph, instructions: tuple[SassInstruction, ...]
) -> int | None:
    """The PTX line of the branch that ends the loop's first latch (its back edge)."""
    for latch in sorted(loop.latches):
        line = instructions[cfg.blocks[latch].last].ptx_line
        if line is not None:
            return line
    return None


def _describe(
    entry: dict[str, Any],
    loop: Loop | None,
    rest: list[Loop],
    straight: bool,
    addresses: tuple[int, ...] = (),
    dsl: bool = False,
) -> list[Annotation]:
    line, f = entry["source_line"], entry["achieved_factor"]
    where = f"loop at line {line}" if line is not None else "loop"
    source = (SourceLoc(entry["file"], line),) if line is not None and entry["file"] else ()
    common: dict[str, Any] = {
        "addresses": loop.addresses if loop else addresses,
        "source": source,
        "blocks": tuple(sorted(loop.blocks)) if loop else (),
        "loops": (loop.index,) if loop else (),
    }
    if not entry["has_back_edge"]:
        text = f"{where} fully unrolled: {f} {'copy' if f == 1 else 'copies'}, no loop left"
    elif f is None and entry.get("before_ptx"):
        text = (
            f"{where}: unrolled before the PTX as `unroll=` asked (by NVVM); the factor is not "
            "measured: no remainder loop to compare with"
        )
    elif f is None:
        text = f"{where}: unroll factor not measured (no instructions of its body in the loop)"
    else:
        t = entry.get("triton_factor", 1)
        if entry.get("triton_remainder"):
            text = (
                f"{where}: the remainder loop of Triton's unrolling (the iterations the loop "
                "before it leaves over), " + ("not unrolled" if f == 1 else f"unrolled by {f}")
            )
        elif t > 1:
            text = f"{where} unrolled by {f}: by {t} in Triton's IR" + (
                "" if f == t else f", then by {f // t} in ptxas"
            )
        else:
            text = f"{where} not unrolled" if f == 1 else f"{where} unrolled by {f}"
        if rest or straight:
            text += ", with a remainder loop" if rest else ", with a straight-line remainder"
    notes = [Annotation("unroll", Severity.INFO, text, data=dict(entry), **common)]
    notes += [remainder_note(r, where, f, source, entry["sass_loops"]) for r in rest]
    warning = _mismatch(entry, where, dsl)
    if warning:
        notes.append(Annotation("unroll", Severity.WARNING, *warning, **common))
    return notes


def _mismatch(entry: dict[str, Any], where: str, dsl: bool) -> tuple[str, str] | None:
    """(message, hint) when what the loop asked for is not what it got. A CuTe DSL (`dsl`)
    loop asks with its range call's keywords; a C++ loop with a pragma."""
    f, want, back = entry["achieved_factor"], entry["requested_factor"], entry["has_back_edge"]
    if "ptxas_factor" in entry:
        got = entry["ptxas_factor"]
        if want == 1 and got not in (None, 1):
            return (
                f'{where}: PTX .pragma "nounroll", but ptxas unrolled it by {got}',
                "ptxas should leave nounroll loops rolled: check the pragma precedes the loop",
            )
        return None
    if want is None or f is None:
        return None
    full = "unroll_full=True" if dsl else "#pragma unroll"
    rolled = "unroll=1" if dsl else "#pragma unroll 1"
    asked = f"unroll={want}" if dsl else f"#pragma unroll {want}"
    if want == "full" and back:
        return (
            f"{where}: {full} asked for full unrolling; a loop unrolled by {f} remains",
            (
                "the trip count is not known when the DSL compiles: make the bounds constants "
                "(Python ints or cutlass.Constexpr), or ask for a factor with unroll=N"
                if dsl
                else "the trip count is not a compile-time constant (or is too large): make the "
                "bound a constant or template parameter, or ask for a factor with #pragma unroll N"
            ),
        )
    if want == 1 and f > 1:
        return (
            f"{where}: {rolled} asked to keep the loop rolled, got {f} copies",
            "check that the request is on this loop"
            if dsl
            else "check that the pragma sits directly above the loop",
        )
    if isinstance(want, int) and want > 1 and ((back and f != want) or (not back and f > want)):
        return (
            f"{where}: {asked} asked for {want}, got {f}" + ("" if back else " (fully unrolled)"),
            "the compiler caps unrolling for code size and registers, and unrolls bodies with "
            f"calls or barriers less: try a smaller {'unroll=N' if dsl else '#pragma unroll N'}",
        )
    return None
