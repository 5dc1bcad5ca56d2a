"""The TUI's view-model: one Inspection turned, once, into rows the panes paint in O(1) each.

Nothing here analyses anything. Every column comes from the Inspection: widths from the memory
analysis' accesses, spills from the spill findings and nvdisasm's marks, loop depth from the
loops, live registers from the liveness counts, tensor/async/barrier flags from sassview's own
opcode categories. The correspondence (source <-> PTX <-> SASS) is indexed into dicts here
because the model's lookups scan every instruction, which is fine for one query and too slow
for each cursor move on a 100k-instruction kernel.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple, overload

from sassview.analyses import Annotation, Severity
from sassview.analyses.loops.entry import UnrollFacts, decided_claim, loop_entry
from sassview.analyses.records_memory import AsyncCopyFacts, MemoryFacts
from sassview.inspection import Inspection
from sassview.ir import ControlCode, SassInstruction, SourceLoc
from sassview.memo import Memo
from sassview.opcodes import category

LineKey = tuple[str, int]  # (file, line) of a source location
_SPACE_LETTER = {"global": "G", "shared": "S", "local": "L", "generic": "M"}
_BARRIER_OPCODES = frozenset(
    {"BAR", "BARRIER", "SYNCS", "ARRIVES", "UCGABAR_ARV", "UCGABAR_WAIT", "WARPSYNC", "MEMBAR"}
)
_ASYNC_OPCODES = frozenset({"LDGSTS", "LDGDEPBAR", "DEPBAR"})
FLAG_LETTERS = "TABS"  # tensor-core op, async copy, barrier, spill: one column each
NO_FLAGS = "····"


class SassRow(NamedTuple):
    """One SASS instruction, as the SASS pane shows it."""

    address: int
    text: str  # the instruction as nvdisasm prints it
    mnemonic: str
    width: str  # "G128": space letter and bits of a memory access, "" otherwise
    flags: str  # four columns of FLAG_LETTERS, "·" where a flag is off
    depth: int  # loop nesting depth, 0 outside loops
    live: int  # occupied GPRs at this instruction (nvdisasm's '#')
    home: LineKey | None  # the source line this row is coloured by
    ptx_line: int  # 0 when the cubin does not map it
    control: str = ""  # the control code's notation (B------:R-:W2:Y:S04); "" before sm_70


@dataclass(frozen=True)
class LoopView:
    index: int
    depth: int
    rows: tuple[int, ...]
    line: LineKey | None
    label: str  # "loop 0 at line 7, depth 1, 36 instructions"


@dataclass(frozen=True)
class FindingView:
    annotation: Annotation
    rows: tuple[int, ...]  # SASS rows it rests on (may be empty: a whole-kernel finding)
    lines: tuple[LineKey, ...]

    @property
    def severity(self) -> Severity:
        return self.annotation.severity


class SassRows(Sequence[SassRow]):
    """The SASS rows, made on demand from columns built once: a 100k-instruction kernel keeps
    a few arrays, not 100k row objects, and the instruction text is formatted only for the
    rows that are painted or searched."""

    def __init__(
        self,
        instructions: Sequence[SassInstruction],
        home: list[LineKey | None],
        depth: bytearray,
        live: Sequence[int],
        widths: dict[int, str],
        flags: dict[int, str],
        control: Sequence[ControlCode] = (),
    ) -> None:
        self.instructions = instructions
        self.control = control  # by address // 16 (Kernel.control)
        self.home = home
        self.depth = depth
        self.live = live
        self.widths = widths  # address -> "G128"
        self.flags = flags  # address -> "T··S", only where a flag is on
        self._texts: list[str] | None = None
        self._samples: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return len(self.instructions)

    @overload
    def __getitem__(self, i: int) -> SassRow: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[SassRow]: ...

    def __getitem__(self, i: int | slice) -> SassRow | Sequence[SassRow]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        x = self.instructions[i]
        live = self.live[i] if i < len(self.live) else 0
        return SassRow(
            x.address, x.text, x.mnemonic, self.widths.get(x.address, ""),
            self.flags.get(x.address, NO_FLAGS), self.depth[i], live, self.home[i],
            x.ptx_line or 0, self.control_text(x.address),
        )  # fmt: skip

    def control_text(self, address: int) -> str:
        index = address // 16
        return self.control[index].notation if index < len(self.control) else ""

    def texts(self) -> list[str]:
        """Every instruction's text, formatted once (for searching)."""
        if self._texts is None:
            self._texts = [x.text for x in self.instructions]
        return self._texts

    def sample_texts(self, step: int) -> list[str]:
        """The text of every `step`-th instruction (the widths are measured on a sample), made
        once per step: the painter's extent and the panes' widths read the same sample."""
        texts = self._samples.get(step)
        if texts is None:
            texts = self._samples[step] = [x.text for x in self.instructions[::step]]
        return texts

    def max_text(self, sample: int = 4096) -> int:
        """A close upper bound of the longest text, from a sample (for the horizontal extent)."""
        step = max(1, len(self.instructions) // sample)
        longest = max(map(len, self.sample_texts(step)), default=0)
        return longest + 16 if step > 1 else longest


@dataclass
class KernelView:
    """Everything the panes, the header and the findings panel read, for one kernel."""

    inspection: Inspection
    title: str
    sass: SassRows
    row_of: dict[int, int]  # address -> SASS row
    main_file: str | None  # the file the source pane shows
    source_lines: tuple[str, ...]
    source_note: str  # why the source pane is empty, when it is
    ptx_lines: tuple[str, ...]
    ptx_start: int  # the kernel's .entry line (1-based), 0 when there is no PTX
    sass_for_line: dict[LineKey, list[int]]  # every frame matches, like the model
    sass_for_ptx: dict[int, list[int]]
    ptx_home: Mapping[int, LineKey]  # PTX line -> its source line (PtxHome: made when read)
    live_scale: int  # what a full live bar means: the kernel's register count or the peak
    loops: tuple[LoopView, ...]
    findings: tuple[FindingView, ...]
    stages: Mapping[str, str] = field(default_factory=dict)  # ttir, ttgir, llir ... as text

    @cached_property
    def ptx_for_line(self) -> dict[LineKey, tuple[int, ...]]:
        """Source line -> its 1-based PTX lines, every frame matching: made on the first
        source-pane move, not for the first screen (the 65k kernel's took 14 ms of it)."""
        ptx_for_line: dict[LineKey, list[int]] = {}
        for pline, loc in self.inspection.kernel.correspondence.ptx_source.items():
            for f in loc.frames():
                ptx_for_line.setdefault((f.file, f.line), []).append(pline)
        return {k: tuple(sorted(set(v))) for k, v in ptx_for_line.items()}

    def line_of_row(self, row: int) -> LineKey | None:
        return self.sass.home[row] if 0 <= row < len(self.sass) else None

    def frames(self, row: int) -> tuple[SourceLoc, ...]:
        loc = self.inspection.kernel.instructions[row].source
        return tuple(loc.frames()) if loc is not None else ()

    def instruction(self, row: int) -> SassInstruction:
        return self.inspection.kernel.instructions[row]


def kernel_title(insp: Inspection) -> str:
    a = insp.program.artifacts
    parts = [insp.kernel.display_name, insp.arch]
    if a.label:
        parts.append(a.label)
    return " · ".join(parts)


def build(insp: Inspection, *, read_file: bool = True) -> KernelView:
    """Index one Inspection for the panes: one pass over the instructions (and their inline
    frames), done once per load; everything per row beyond that is made when painted."""
    kernel = insp.kernel
    ins = kernel.instructions
    main = insp.main_file
    home: list[LineKey | None] = [None] * len(ins)
    sass_for_line: dict[LineKey, list[int]] = {}
    sass_for_ptx: dict[int, list[int]] = {}
    for i, x in enumerate(ins):
        src = x.source
        if src is not None:
            if src.inlined_at is None:  # the common case: one frame
                key = (src.file, src.line)
                seen = sass_for_line.get(key)
                if seen is None:
                    sass_for_line[key] = [i]
                elif seen[-1] != i:
                    seen.append(i)
                home[i] = key
            else:
                home[i] = _frames(src, i, main, sass_for_line)
        p = x.ptx_line
        if p:
            got = sass_for_ptx.get(p)
            if got is None:
                sass_for_ptx[p] = [i]
            else:
                got.append(i)
    row_of = {x.address: i for i, x in enumerate(ins)}
    source_lines, note = _source_text(insp, main, read_file)
    rows = SassRows(ins, home, _depths(insp, row_of), insp.liveness.counts.get("GPR", ()),
                    _widths(insp), _flags(insp), insp.kernel.control)  # fmt: skip
    return KernelView(
        inspection=insp,
        title=kernel_title(insp),
        sass=rows,
        row_of=row_of,
        main_file=main,
        source_lines=source_lines,
        source_note=note,
        ptx_lines=text_lines(insp.program.artifacts.ptx or ""),
        ptx_start=kernel.ptx.start_line if kernel.ptx is not None else 0,
        sass_for_line=sass_for_line,
        sass_for_ptx=sass_for_ptx,
        ptx_home=PtxHome(kernel.correspondence.ptx_source, main),
        live_scale=max(kernel.resources.registers, insp.liveness.peak, 1),
        loops=_loops(insp, row_of),
        findings=tuple(_finding(a, row_of) for a in insp.annotations),
        stages=dict(insp.program.artifacts.stages),
    )


# By the text's identity (hashing a 4 MB module would cost what the split does): the kernels of
# one file share their Program's one PTX text.
_TEXT_LINES: Memo[int, tuple[str, tuple[str, ...]]] = Memo("tui.state.text_lines", 2)


def text_lines(text: str) -> tuple[str, ...]:
    """`text`'s lines, split once for all the kernels that show it (6 ms at 65k, per kernel
    shown): and one tuple, so that what is measured on it is measured once (paint.widest)."""
    found = _TEXT_LINES.get(id(text))
    if found is None or found[0] is not text:
        found = _TEXT_LINES[id(text)] = (text, tuple(text.splitlines()))
    return found[1]


def _frames(
    src: SourceLoc, i: int, main: str | None, sass_for_line: dict[LineKey, list[int]]
) -> LineKey:
    """Record row i under every frame of an inline chain; its home is the frame in `main`."""
    home: LineKey | None = None
    for f in src.frames():
        key = (f.file, f.line)
        rows = sass_for_line.setdefault(key, [])
        if not rows or rows[-1] != i:
            rows.append(i)
        if home is None and f.file == main:
            home = key
    return home or (src.file, src.line)


class PtxHome(Mapping[int, LineKey]):
    """PTX line -> the source line it is coloured by (its frame in `main`, else its own), made
    for each line when it is read: a screenful of PTX reads 50 of the module's 10^5 lines."""

    def __init__(self, ptx_source: Mapping[int, SourceLoc], main: str | None) -> None:
        self._source = ptx_source
        self._main = main

    def __getitem__(self, line: int) -> LineKey:
        loc = self._source[line]
        if loc.inlined_at is None:
            return (loc.file, loc.line)
        home = next((f for f in loc.frames() if f.file == self._main), loc)
        return (home.file, home.line)

    def __iter__(self) -> Iterator[int]:
        return iter(self._source)

    def __len__(self) -> int:
        return len(self._source)

    def __contains__(self, line: object) -> bool:
        return line in self._source


def _source_text(
    insp: Inspection, main: str | None, read_file: bool
) -> tuple[tuple[str, ...], str]:
    a = insp.program.artifacts
    if main is None:
        return (), "no source: the cubin has no line table (compile with -lineinfo)"
    if a.source_text is not None and main == a.source_path:
        return tuple(a.source_text.splitlines()), ""
    if read_file:
        try:
            return tuple(Path(main).read_text(encoding="utf-8", errors="replace").splitlines()), ""
        except OSError:
            pass
    return (), f"{main}: not readable here (the line table names it)"


def _widths(insp: Inspection) -> dict[int, str]:
    out = {}
    for acc in insp.typed_facts(MemoryFacts).accesses:
        letter = _SPACE_LETTER.get(acc["space"])
        if letter is not None:
            bits = acc["bits"]
            out[acc["address"]] = f"{letter}{bits if isinstance(bits, int) else 'blk'}"
    return out


def _spill_addresses(insp: Inspection) -> frozenset[int]:
    found = {addr for a in insp.annotations if a.kind == "spill" for addr in a.addresses}
    return frozenset(found)


def _flags(insp: Inspection) -> dict[int, str]:
    """address -> the four flag columns, for the instructions that have any flag on."""
    spills = _spill_addresses(insp)
    barriers = {b["address"] for b in insp.typed_facts(AsyncCopyFacts).barriers}
    by_opcode: dict[str, tuple[bool, bool, bool]] = {}
    out: dict[int, str] = {}
    for x in insp.kernel.instructions:
        kinds = by_opcode.get(x.opcode)
        if kinds is None:
            cat = category(x.opcode)
            kinds = by_opcode[x.opcode] = (
                cat == "tensor",
                (cat == "async" and x.opcode not in _BARRIER_OPCODES) or x.opcode in _ASYNC_OPCODES,
                x.opcode in _BARRIER_OPCODES,
            )
        barrier = kinds[2] or x.address in barriers
        spill = x.address in spills or (bool(x.marks) and "SpillRefill" in x.marks)
        if kinds[0] or kinds[1] or barrier or spill:
            out[x.address] = "".join((
                "T" if kinds[0] else "·", "A" if kinds[1] else "·",
                "B" if barrier else "·", "S" if spill else "·",
            ))  # fmt: skip
    return out


def _depths(insp: Inspection, row_of: Mapping[int, int]) -> bytearray:
    depth = bytearray(len(insp.kernel.instructions))
    for lp in insp.loops:
        d = min(lp.depth, 255)
        for addr in lp.addresses:
            i = row_of.get(addr)
            if i is not None and depth[i] < d:
                depth[i] = d
    return depth


def _loops(insp: Inspection, row_of: Mapping[int, int]) -> tuple[LoopView, ...]:
    out = []
    for lp in insp.loops:
        rows = tuple(row_of[a] for a in lp.addresses if a in row_of)
        line = (lp.source.file, lp.source.line) if lp.source is not None else None
        out.append(LoopView(lp.index, lp.depth, rows, line, _loop_label(insp, lp.index, rows)))
    return tuple(out)


def _loop_label(insp: Inspection, index: int, rows: tuple[int, ...]) -> str:
    """`loop 1: line 9 (remainder loop), depth 1, 10 instructions; unrolled by 4, with a
    remainder loop [counted in the SASS]`: what `l` says of a SASS loop, named and claimed
    as `check` names and claims it (its census entry's `decided_claim`)."""
    lp = next(lp for lp in insp.loops if lp.index == index)
    text = f"loop {index}: {insp.loop_name(index)}, depth {lp.depth}, {len(rows)} instructions"
    entry = loop_entry(insp.typed_facts(UnrollFacts).entries, index)
    return text if entry is None else f"{text}; {decided_claim(entry)}"


_FILE_LINE = attrgetter("file", "line")


def _finding(a: Annotation, row_of: Mapping[int, int]) -> FindingView:
    # C-level maps: the 65k kernel's 4 findings name 11,781 locations (a generator over
    # them took 17 ms of the first screen's CPU, these 2 ms).
    rows = tuple(sorted(map(row_of.__getitem__, filter(row_of.__contains__, a.addresses))))
    return FindingView(a, rows, tuple(dict.fromkeys(map(_FILE_LINE, a.source))))
