"""The annotated instruction graph of one kernel: what every view reads.

`Inspection` bundles the kernel's model with its control-flow graph, loops, register liveness and
every analysis' facts and annotations. It is built once (`inspect_kernel`) and never changed;
views — the CLI report, the TUI, the pytest plugin, the exporters — only read it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from sassview.analyses import Annotation, Findings, built_in, run_all
from sassview.analyses.base import AnalysisContext
from sassview.analyses.facts import Facts
from sassview.build import analyses_of, cache_analyses
from sassview.gcpause import without_gc
from sassview.graph.cfg import ControlFlowGraph, build_cfg
from sassview.graph.dataflow import (
    Effects,
    Liveness,
    compute_liveness,
    instruction_effects,
    register_columns,
)
from sassview.graph.loops import Loop, find_loops
from sassview.ir import Kernel, Program

if TYPE_CHECKING:
    from sassview.graph.lane_values import BlockShape  # the caller's: a warm run reads none

# Files a user writes kernels in: what a listing shows as "the source".
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".py", ".ptx")

_F = TypeVar("_F", bound=Facts)


@dataclass(frozen=True, slots=True)
class Inspection:
    program: Program
    kernel: Kernel
    cfg: ControlFlowGraph
    loops: tuple[Loop, ...]
    liveness: Liveness
    findings: Mapping[str, Findings]

    @property
    def arch(self) -> str:
        return self.kernel.arch

    @property
    def annotations(self) -> tuple[Annotation, ...]:
        """Every finding, most severe first, then in address order."""
        found = [a for f in self.findings.values() for a in f.annotations]
        return tuple(
            sorted(found, key=lambda a: (-a.severity, a.addresses[:1] or (1 << 62,), a.kind))
        )

    def facts(self, analysis: str) -> Mapping[str, Any]:
        return self.findings[analysis].facts

    def typed_facts(self, kind: type[_F]) -> _F:
        """One analysis' facts as its typed record (kind.ANALYSIS names the analysis)."""
        facts = self.findings[kind.ANALYSIS].facts
        if not isinstance(facts, kind):
            raise TypeError(
                f"{kind.ANALYSIS} facts are {type(facts).__name__}, not {kind.__name__}"
            )
        return facts

    def loop_place(self, sass_loop: int) -> str | None:
        """How the loop census names SASS loop `sass_loop` (its statement's line, and which
        of its main and remainder loops it is); None where no entry holds it."""
        from sassview.analyses.loops.entry import UnrollFacts, loop_name

        return loop_name(self.typed_facts(UnrollFacts).entries, sass_loop)

    def loop_name(self, sass_loop: int) -> str:
        """The name every view gives SASS loop `sass_loop`: the census' (`loop_place`), else
        its source line, else its index (`records_compute.loop_place`)."""
        from sassview.analyses.records_compute import loop_place

        found = self.loop_place(sass_loop)
        if found is not None:
            return found
        lp = next((lp for lp in self.loops if lp.index == sass_loop), None)
        return loop_place(lp.source.line if lp and lp.source else None, sass_loop)

    @property
    def main_file(self) -> str | None:
        """The file a listing shows beside the SASS: the compiled source, else the file most
        instructions come from (a cubin's line table names the .cu it was built from)."""
        a = self.program.artifacts
        if a.source_path and PurePath(a.source_path).suffix in SOURCE_SUFFIXES:
            return a.source_path
        counts: dict[str, int] = {}
        for ins in self.kernel.instructions:
            if ins.source is not None:
                f = ins.source.outermost.file
                counts[f] = counts.get(f, 0) + 1
        return min(counts, key=lambda f: (-counts[f], f)) if counts else a.source_path


@without_gc  # the analyses make many small acyclic objects, like the model build
def inspect_kernel(
    program: Program,
    kernel: Kernel,
    columns: dict[str, int] | None = None,
    effects: list[Effects] | None = None,
    block: BlockShape | None = None,
) -> Inspection:
    """`columns`: the program's register_columns, when the caller inspects several of its
    kernels and has computed them once (inspect_program does); `effects`: the kernel's
    instruction_effects, which that took; `block`: the thread block the warp analyses
    assume (None: the kernel's own .reqntid, else a warp of 32 consecutive threadIdx.x)."""
    cfg = build_cfg(kernel.instructions)
    loops = find_loops(cfg, kernel.instructions)
    if effects is None:  # liveness and the warp model read them both
        effects = instruction_effects(kernel.instructions)
    # CALL/RET clobber and preserve registers by the ABI: that needs the kernel's register count
    # and the widest register any function of the cubin names.
    liveness = compute_liveness(
        kernel.instructions,
        cfg,
        registers=kernel.resources.registers,
        columns=_columns(program) if columns is None else columns,
        effects=effects,
    )
    ctx = AnalysisContext(
        program=program,
        kernel=kernel,
        cfg=cfg,
        loops=loops,
        liveness=liveness,
        block=block,
        effects=effects,
    )
    findings = _named(run_all(ctx), loops)
    return Inspection(program, kernel, cfg, loops, liveness, MappingProxyType(findings))


def _named(found: dict[str, Findings], loops: tuple[Loop, ...]) -> dict[str, Findings]:
    """The findings of analyses that name one SASS loop by its line (`records_compute.
    loop_place`: the schedule's exposed-load notes), with the loop named as the loop census
    names it (`loop_name`): a main loop and its remainder loop at one line must not read as
    one finding twice. Findings that name several loops are reworded by their facts record
    (`Facts.named`: a warp partition's loops, placed by their statements)."""
    from sassview.analyses.loops.entry import UnrollFacts, loop_entry, loop_name
    from sassview.analyses.records_compute import loop_place, placed

    census = found.get(UnrollFacts.ANALYSIS)
    if census is None or not isinstance(census.facts, UnrollFacts) or not census.facts.entries:
        return found
    entries, by_index = census.facts.entries, {lp.index: lp for lp in loops}

    def site(index: int) -> str:  # where the census places a loop, else by its own line
        entry = loop_entry(entries, index)
        if entry is not None:
            return entry.site
        lp = by_index.get(index)
        return loop_place(lp.source.line if lp and lp.source else None, index)

    out = {}
    for name, f in found.items():
        notes = []
        for a in f.annotations:
            lp = (
                by_index.get(a.loops[0])
                if name != UnrollFacts.ANALYSIS and len(a.loops) == 1
                else None
            )
            if lp is not None:
                line = lp.source.line if lp.source is not None else None
                text = placed(a.message, line, lp.index, loop_name(entries, lp.index))
                a = a if text == a.message else dataclasses.replace(a, message=text)
            notes.append(a)
        texts = f.facts.named(notes, site)
        notes = [
            a if text == a.message else dataclasses.replace(a, message=text)
            for a, text in zip(notes, texts, strict=True)
        ]
        changed = any(x is not y for x, y in zip(notes, f.annotations, strict=True))
        out[name] = dataclasses.replace(f, annotations=tuple(notes)) if changed else f
    return out


def _columns(program: Program) -> dict[str, int]:
    """register_columns of a program: the widest register any of its functions names."""
    return register_columns((k.instructions, k.resources.registers) for k in program.kernels)


def inspect_program(
    program: Program, kernel: str | None = None, *, block: BlockShape | None = None
) -> list[Inspection]:
    """Every kernel's Inspection (or those `kernel` names: a template's bare name names every
    instantiation). For the default block they are cached with the model
    (sassview.build.cache_analyses): a warm run loads what the analyses found."""
    kernels = list(program.kernels_named(kernel)) if kernel else list(program.kernels)
    cached = _cached(program) if block is None else None
    if cached is not None:
        wanted = {id(k) for k in kernels}
        return [i for i in cached if id(i.kernel) in wanted]
    # The register columns read every instruction's effects, as liveness does: once each.
    effects = {k.name: instruction_effects(k.instructions) for k in program.kernels}
    columns = register_columns(
        (k.instructions, k.resources.registers, effects[k.name]) for k in program.kernels
    )
    found = [inspect_kernel(program, k, columns, effects[k.name], block) for k in kernels]
    if block is None and kernel is None and built_in():
        cache_analyses(program, tuple(found))
    return found


def _cached(program: Program) -> tuple[Inspection, ...] | None:
    """The Inspections cached with `program`'s model, one per kernel in order; None if none."""
    found = analyses_of(program)
    if not found or len(found) != len(program.kernels) or not built_in():
        return None
    if not all(
        isinstance(i, Inspection) and i.program is program and i.kernel is k
        for i, k in zip(found, program.kernels, strict=True)
    ):
        return None
    return found
