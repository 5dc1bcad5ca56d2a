"""What every export format shows of one Inspection, gathered once: a reader, not an analysis.

The Markdown and HTML listings, the JSON graph and the CFG drawings all need the same few
things in display form — the file names as a reader should see them, the source and PTX lines,
the findings numbered, which instruction carries which finding, the loop and resource tables,
the source <-> PTX <-> SASS correspondence. They are read here from the Inspection (its model,
graph and findings) and nothing is re-derived: a finding's addresses are the analysis' own, a
loop's factor is the unroll analysis' own.

Paths: a kernel's line table holds the absolute paths of the machine that compiled it, which
mean nothing to a reader of an exported page and would make the same export differ from one
checkout to another. `PathNames` shows a path relative to a root (by default the directory of
the compiled file) and otherwise by its base name; `PathNames.text` applies the same to any
message that quotes a path.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sassview.analyses.base import Annotation, Severity
from sassview.analyses.loops.entry import UnrollFacts, decided_verdict
from sassview.analyses.records import BankFacts, CoalescingFacts, memory_use_text
from sassview.analyses.records_compute import TensorCoreFacts
from sassview.inspection import Inspection
from sassview.ir import SourceLoc


class PathNames:
    """Absolute paths of the compiling machine -> names fit for a page (deterministic)."""

    def __init__(self, root: str | os.PathLike[str] | None, known: set[str]) -> None:
        self.root = os.path.normpath(os.fspath(root)) if root is not None else None
        self._map = {p: self._display(p) for p in known if p}
        self._order = sorted(self._map, key=lambda p: (-len(p), p))

    def _display(self, path: str) -> str:
        norm = os.path.normpath(path)
        if self.root is not None and os.path.isabs(norm):
            root = self.root if self.root.endswith(os.sep) else self.root + os.sep
            if norm.startswith(root):
                return PurePosixPath(*Path(norm[len(root) :]).parts).as_posix()
        if os.path.isabs(norm):
            return Path(norm).name
        return PurePosixPath(*Path(norm).parts).as_posix() if norm != "." else path

    def name(self, path: str | None) -> str:
        if not path:
            return ""
        return self._map.get(path) or self._display(path)

    def text(self, text: str) -> str:
        """`text` with every known path replaced by its display name (longest first)."""
        for p in self._order:
            if p in text:
                text = text.replace(p, self._map[p])
        return text


@dataclass(frozen=True, slots=True)
class Finding:
    number: int  # 1-based, in Inspection.annotations order (most severe first)
    kind: str
    severity: str  # info | note | warning
    message: str
    hint: str
    addresses: tuple[int, ...]
    loops: tuple[int, ...]
    source: tuple[str, ...]  # "file:line", display names
    flags: bool  # a note or warning: its instructions are highlighted

    @property
    def anchor(self) -> str:
        return f"f-{self.number}"


@dataclass(frozen=True, slots=True)
class Row:
    """One SASS instruction as listings show it."""

    index: int
    address: int
    text: str  # as nvdisasm prints it, without address and `;`
    block: int
    line: int | None  # the line of the main file it belongs to (innermost frame there)
    lines: tuple[int, ...]  # every line of the main file in its inline chain
    where: str  # "file:line" of its innermost frame, display name, "" when unknown
    ptx_line: int | None
    findings: tuple[int, ...]
    flagged: bool
    control: str = ""  # the control code's notation (sassview.binary.control); "" before sm_70

    @property
    def anchor(self) -> str:
        return f"a-{self.address:04x}"


@dataclass(frozen=True, slots=True)
class LoopRow:
    """One row of the loop table: a source loop as the unroll analysis reports it."""

    line: int | None
    file: str
    depth: int
    achieved: int | None
    requested: object  # int, "full", or None
    back_edge: bool
    remainder: bool
    instructions: int
    tensor_ops: int  # MMA instructions inside (tensor_cores.path_of)
    tensor_path: str  # the tensor_cores analysis' path for these loops
    kind: str = "rolled"  # the census' kind: rolled | full | gone
    inlined_at: tuple[int, ...] = ()  # call lines, innermost first
    # what the compiler made of it and how that was decided, in check's words
    # (loops.entry.decided_verdict: `unrolled by 4, with a remainder loop [counted in the SASS]`)
    verdict: str = ""

    @property
    def context(self) -> str:
        """` (inlined at 73 < 90)`, or nothing: what tells two entries of one line apart."""
        return f" (inlined at {' < '.join(map(str, self.inlined_at))})" if self.inlined_at else ""


@dataclass(frozen=True, slots=True)
class MemoryRow:
    """One row of the memory-use table: a global access's sectors or a shared access's
    wavefronts for one warp-wide execution, as the coalescing and bank-conflict facts say."""

    address: int
    opcode: str
    space: str  # global, shared
    direction: str
    line: int | None
    count: str  # '32 of 4 sectors', '32 of 1 wavefronts (32-way)', 'unknown'
    lanes: str  # the lanes that run it ('32', '16')
    pattern: str  # the lane stride in words, or ''
    note: str  # why unknown, or what the count assumes, or ''

    @property
    def anchor(self) -> str:
        return f"a-{self.address:04x}"


@dataclass(frozen=True, slots=True)
class LineLink:
    """Source line <-> its PTX lines and SASS addresses."""

    line: int
    text: str
    ptx: tuple[int, ...]
    sass: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ExportView:
    inspection: Inspection
    paths: PathNames
    title: str  # kernel name · arch (· label)
    kernel: str  # demangled name
    mangled: str
    arch: str
    label: str
    main_file: str  # display name
    main_raw: str | None
    source_lang: str  # a Pygments lexer alias
    source_lines: tuple[str, ...]
    source_note: str
    ptx_lines: tuple[tuple[int, str], ...]  # (1-based PTX line, text), the kernel's function
    rows: tuple[Row, ...]
    findings: tuple[Finding, ...]
    loops: tuple[LoopRow, ...]
    resources: tuple[tuple[str, str], ...]
    links: tuple[LineLink, ...]
    producer: str
    memory: tuple[MemoryRow, ...] = ()  # in address order
    memory_summary: str = ""  # check's "memory use" row

    @property
    def flagged_addresses(self) -> frozenset[int]:
        return frozenset(r.address for r in self.rows if r.flagged)


def _source_lines(insp: Inspection, main: str | None, read_files: bool) -> tuple[list[str], str]:
    a = insp.program.artifacts
    if main is None:
        return [], "no source: the cubin has no line table (compile with -lineinfo)"
    if a.source_text is not None and main == a.source_path:
        return a.source_text.splitlines(), ""
    if read_files:
        try:
            return Path(main).read_text(encoding="utf-8", errors="replace").splitlines(), ""
        except OSError:
            pass
    return [], "the source is not available here (the line table names it)"


def _language(main: str | None) -> str:
    suffix = Path(main).suffix if main else ""
    return {".py": "python", ".ptx": "nvptx"}.get(suffix, "cuda")


def known_paths(insp: Inspection) -> set[str]:
    """Every file path the kernel's model names: the ones PathNames must translate."""
    corr = insp.kernel.correspondence
    found = {insp.program.artifacts.source_path or ""}
    for loc in (*corr.sass_source.values(), *corr.ptx_source.values()):
        found.update(f.file for f in loc.frames())
    return {p for p in found if p}


def _resources(insp: Inspection) -> tuple[tuple[str, str], ...]:
    r = insp.kernel.resources
    from sassview.analyses.records_memory import SpillFacts
    from sassview.report.words import spills_row

    marked = insp.typed_facts(SpillFacts).spill_instructions
    spills = spills_row(r.spill_store_bytes, r.spill_load_bytes, marked)
    bounds = "-"
    if r.reqntid:
        bounds = "reqntid " + "x".join(map(str, r.reqntid))
    elif r.maxntid:
        bounds = "max " + "x".join(map(str, r.maxntid)) + " threads"
    if r.min_blocks_per_sm:
        bounds += f", min {r.min_blocks_per_sm} blocks/SM"
    shared = f"{r.shared_user} B" + (f" (+{r.shared_reserved} B reserved)" if r.shared_reserved
                                     else "")  # fmt: skip
    if r.shared_dynamic:
        shared += f" + {r.shared_dynamic} B dynamic"
    banks = ", ".join(f"bank{b} {n} B" for b, n in sorted(r.constant.items())) or "-"
    count = sum(1 for x in insp.kernel.instructions if x.opcode != "NOP")
    return (
        ("registers", str(r.registers)),
        ("register peak (live)", str(insp.liveness.peak)),
        ("spills", spills),
        ("stack frame", f"{r.stack_frame} B"),
        ("local memory", f"{r.local} B"),
        ("shared memory", shared),
        ("constant", banks),
        ("launch bounds", bounds),
        ("barriers", str(r.barriers)),
        ("instructions", str(count)),
    )


def _loops(insp: Inspection, paths: PathNames) -> tuple[LoopRow, ...]:
    by_index = {lp.index: lp for lp in insp.loops}
    per_loop = insp.typed_facts(TensorCoreFacts).per_loop
    out = []
    for e in insp.typed_facts(UnrollFacts).entries:
        sass_loops = [by_index[i] for i in e.sass_loops if i in by_index]
        tensor = e.tensor_ops  # the census' count: a fully unrolled loop's copies have theirs
        tc_paths = sorted({per_loop.get(str(lp.index), "none") for lp in sass_loops} - {"none"})
        out.append(LoopRow(
            e.line, paths.name(e.file), e.depth,
            e.factor if e.kind == "rolled" else e.copies, e.requested, e.kind == "rolled",
            e.remainder, e.instructions, tensor, ", ".join(tc_paths) or "none",
            kind=e.kind, inlined_at=tuple(c.line for c in e.inlined_at), verdict=decided_verdict(e),
        ))  # fmt: skip
    return tuple(out)


def _memory(insp: Inspection) -> tuple[tuple[MemoryRow, ...], str]:
    """The memory-use table and its one-line summary, from the analyses' facts."""
    glob, banks = insp.typed_facts(CoalescingFacts), insp.typed_facts(BankFacts)
    rows = []
    for g in glob.accesses:
        count = "unknown" if g["sectors"] is None else f"{g['sectors']} of {g['min_sectors']}"
        rows.append(MemoryRow(
            g["address"], g["opcode"], "global", g["direction"], g["source_line"],
            count + " sectors" * (g["sectors"] is not None), str(g["active_lanes"]),
            g["pattern"] or "", g["unknown"] or g["assumption"] or "",
        ))  # fmt: skip
    for b in banks.accesses:
        if b["wavefronts"] is None:
            count = "unknown"
        else:
            count = f"{b['wavefronts']} of {b['ideal']} wavefronts ({b['ways']}-way)"
        rows.append(MemoryRow(
            b["address"], b["opcode"], "shared", b["direction"], b["source_line"], count, "",
            b["pattern"] or "", b["unknown"] or "",
        ))  # fmt: skip
    rows.sort(key=lambda r: r.address)
    return tuple(rows), f"{memory_use_text(glob, banks)}; assumes {glob.block}"


def _finding(number: int, a: Annotation, paths: PathNames) -> Finding:
    spots = sorted({(paths.name(s.outermost.file), s.outermost.line) for s in a.source})
    where = [f"{file}:{line}" for file, line in spots]
    return Finding(
        number, a.kind, a.severity.name.lower(), paths.text(a.message), paths.text(a.hint),
        tuple(a.addresses), tuple(a.loops), tuple(where), a.severity >= Severity.NOTE,
    )  # fmt: skip


def _lines_in(loc: SourceLoc | None, main: str | None) -> tuple[int, ...]:
    if loc is None or main is None:
        return ()
    return tuple(dict.fromkeys(f.line for f in loc.frames() if f.file == main))


def build_view(
    insp: Inspection,
    *,
    root: str | os.PathLike[str] | None = None,
    read_files: bool = True,
) -> ExportView:
    """Gather what the exporters show of `insp`. `root`: paths are shown relative to it
    (default: the directory of the compiled file); `read_files`: read a source file the line
    table names when the compile did not keep its text (off for reproducible goldens)."""
    a = insp.program.artifacts
    kernel = insp.kernel
    if root is None and a.source_path and os.path.isabs(a.source_path):
        root = os.path.dirname(a.source_path)
    paths = PathNames(root, known_paths(insp))
    main = insp.main_file
    findings = tuple(_finding(n, x, paths) for n, x in enumerate(insp.annotations, 1))
    by_address: dict[int, list[int]] = {}
    flagged: set[int] = set()
    for f in findings:
        for addr in f.addresses:
            by_address.setdefault(addr, []).append(f.number)
            if f.flags:
                flagged.add(addr)
    rows = []
    for i, x in enumerate(kernel.instructions):
        lines = _lines_in(x.source, main)
        where = f"{paths.name(x.source.file)}:{x.source.line}" if x.source is not None else ""
        rows.append(Row(
            i, x.address, x.text, insp.cfg.block_of_index(i).index if insp.cfg.blocks else 0,
            lines[0] if lines else None, lines, where, x.ptx_line,
            tuple(sorted(set(by_address.get(x.address, ())))), x.address in flagged,
            control.notation if (control := kernel.control_at(x.address)) else "",
        ))  # fmt: skip
    source_lines, note = _source_lines(insp, main, read_files)
    ptx_lines: tuple[tuple[int, str], ...] = ()
    if a.ptx and kernel.ptx is not None:
        text = a.ptx.splitlines()
        lo, hi = kernel.ptx.start_line, min(kernel.ptx.end_line, len(text))
        ptx_lines = tuple((n, text[n - 1]) for n in range(lo, hi + 1))
    title = " · ".join(p for p in (kernel.display_name, insp.arch, a.label) if p)
    memory, memory_summary = _memory(insp)
    return ExportView(
        inspection=insp,
        paths=paths,
        title=title,
        kernel=kernel.display_name,
        mangled=kernel.name,
        arch=insp.arch,
        label=a.label,
        main_file=paths.name(main),
        main_raw=main,
        source_lang=_language(main),
        source_lines=tuple(source_lines),
        source_note=note,
        ptx_lines=ptx_lines,
        rows=tuple(rows),
        findings=findings,
        loops=_loops(insp, paths),
        resources=_resources(insp),
        links=_links(insp, main, rows, source_lines),
        producer=insp.program.producer,
        memory=memory,
        memory_summary=memory_summary,
    )


def _links(
    insp: Inspection, main: str | None, rows: list[Row], source: list[str]
) -> tuple[LineLink, ...]:
    sass: dict[int, list[int]] = {}
    for r in rows:
        for line in r.lines:
            sass.setdefault(line, []).append(r.address)
    ptx: dict[int, set[int]] = {}
    for pline, loc in insp.kernel.correspondence.ptx_source.items():
        for line in _lines_in(loc, main):
            ptx.setdefault(line, set()).add(pline)
    out = []
    for line in sorted(set(sass) | set(ptx)):
        text = source[line - 1] if 0 < line <= len(source) else ""
        out.append(
            LineLink(line, text, tuple(sorted(ptx.get(line, ()))), tuple(sass.get(line, ())))
        )
    return tuple(out)


def ranges(values: tuple[int, ...] | list[int], step: int = 1) -> list[tuple[int, int]]:
    """Sorted values as runs of consecutive ones: [1, 2, 3, 7] -> [(1, 3), (7, 7)]."""
    out: list[tuple[int, int]] = []
    for v in sorted(set(values)):
        if out and v == out[-1][1] + step:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out
