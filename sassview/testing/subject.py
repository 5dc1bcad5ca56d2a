"""What every assertion reads of a compiled kernel: its facts, the instructions a scope selects,
the findings that touch them and the listing excerpt a failure shows.

`KernelUnderTest` (sassview.testing.matchers) adds the assertions on top of this; the checkers
(features, widths, memory_use, unrolling, schedule, occupancy, textcheck) take a `Subject`, so
they import this module and not matchers, which imports them: no import cycle, and no checker
reaches into another class's private helpers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, TypeVar

from sassview.analyses import Annotation
from sassview.analyses.facts import Facts
from sassview.analyses.loops.entry import UnrollFacts
from sassview.graph.loops import Loop
from sassview.inspection import Inspection
from sassview.ir import Kernel, Program, Resources, SassInstruction
from sassview.report import listing as _listing
from sassview.testing.patterns import compile_opcode_pattern

_F = TypeVar("_F", bound=Facts)
LoopRef = int | Loop
Lines = int | tuple[int, int] | range


class Subject:
    """One compiled kernel (one architecture, one variant) and the selections tests make of it."""

    def __init__(self, inspection: Inspection, *, memo: dict[str, Any] | None = None) -> None:
        self.inspection = inspection
        self._memo = memo if memo is not None else {}

    # -- what it is ------------------------------------------------------------------------

    @property
    def program(self) -> Program:
        return self.inspection.program

    @property
    def kernel(self) -> Kernel:
        return self.inspection.kernel

    @property
    def arch(self) -> str:
        return self.inspection.arch

    @property
    def name(self) -> str:
        """The kernel's name without its argument list (add_f4, tiled_sum)."""
        return self.kernel.display_name.split("(", 1)[0]

    @property
    def resources(self) -> Resources:
        return self.kernel.resources

    @property
    def loops(self) -> tuple[Loop, ...]:
        return self.inspection.loops

    def facts(self, analysis: str) -> Mapping[str, Any]:
        return self.inspection.facts(analysis)

    def typed_facts(self, kind: type[_F]) -> _F:
        """One analysis' facts as its record (Inspection.typed_facts)."""
        return self.inspection.typed_facts(kind)

    def describe(self) -> str:
        art = self.program.artifacts
        return f"{self.name} ({self.arch})" + (f" [{art.label}]" if art.variant else "")

    def sass_text(self, *, addresses: bool = True, source: bool = True) -> _listing.Listing:
        """The SASS listing FileCheck reads (see sassview.report.listing)."""
        key = f"sass:{addresses}:{source}"
        if key not in self._memo:
            self._memo[key] = _listing.sass_listing(self.kernel, addresses=addresses, source=source)
        return self._memo[key]  # type: ignore[no-any-return]

    # -- selecting instructions ------------------------------------------------------------

    def loop(self, line: int) -> Loop:
        """The SASS loop of the source loop at `line` (its main loop when it has a remainder)."""
        for e in self.inspection.typed_facts(UnrollFacts).loops:
            if e["source_line"] == line:
                if e["sass_loops"]:
                    return self.loops[int(e["sass_loops"][0])]
                raise LookupError(
                    f"{self.describe()}: the loop at line {line} is fully "
                    f"unrolled ({e['achieved_factor']} copies): no SASS loop left"
                )
        for lp in self.loops:
            if lp.source is not None and lp.source.line == line:
                return lp
        raise LookupError(f"{self.describe()}: no loop at line {line}; {self._loop_list()}")

    def instructions(
        self, pattern: str | None = None, *, loop: LoopRef | None = None, lines: Lines | None = None
    ) -> list[SassInstruction]:
        """Instructions in scope, optionally only those whose mnemonic matches `pattern`."""
        scope, _ = self.scope(loop, lines)
        rx = compile_opcode_pattern(pattern) if pattern is not None else None
        return [
            i
            for i in self.kernel.instructions
            if (scope is None or i.address in scope) and (rx is None or rx.fullmatch(i.mnemonic))
        ]

    def main_file(self) -> str | None:
        """The file the kernel's own code is in: the compiled source, or the file most of its
        instructions come from (a kernel generated into a file of its own)."""
        if "main_file" not in self._memo:
            files = Counter(i.source.outermost.file for i in self.kernel.instructions if i.source)
            path = self.program.artifacts.source_path
            main = path if path in files else (files.most_common(1)[0][0] if files else None)
            self._memo["main_file"] = main
        return self._memo["main_file"]  # type: ignore[no-any-return]

    def scope(self, loop: LoopRef | None, lines: Lines | None) -> tuple[set[int] | None, str]:
        """(addresses in scope or None for the whole kernel, words for messages)."""
        scope: set[int] | None = None
        words = []
        if lines is not None:
            if isinstance(lines, int):
                lo, hi = lines, lines
            elif isinstance(lines, range):
                lo, hi = lines.start, lines.stop - 1
            else:
                lo, hi = lines
            main = self.main_file()
            scope = {
                i.address
                for i in self.kernel.instructions
                if i.source is not None
                and any(
                    (main is None or f.file == main) and lo <= f.line <= hi
                    for f in i.source.frames()
                )
            }
            words.append(f"on line {lo}" if lo == hi else f"on lines {lo}-{hi}")
        if loop is not None:
            lp = loop if isinstance(loop, Loop) else self._loop_at(loop)
            body = set(lp.addresses)
            scope = body if scope is None else scope & body
            words.append(f"in loop {lp.index} ({self.inspection.loop_name(lp.index)})")
        return scope, " ".join(words) or "in the kernel"

    def _loop_at(self, index: int) -> Loop:
        if not 0 <= index < len(self.loops):
            raise IndexError(f"{self.describe()}: no loop {index}; {self._loop_list()}")
        return self.loops[index]

    def _loop_list(self) -> str:
        if not self.loops:
            return "the kernel has no SASS loops"
        name = self.inspection.loop_name
        return "loops: " + ", ".join(f"{lp.index} ({name(lp.index)})" for lp in self.loops)

    # -- what a failure shows --------------------------------------------------------------

    def findings(
        self, kinds: tuple[str, ...], addresses: set[int] | None = None
    ) -> list[Annotation]:
        """The analyses' annotations of these kinds, touching `addresses` when given."""
        return [
            a
            for a in self.inspection.annotations
            if a.kind in kinds
            and (addresses is None or not a.addresses or addresses & set(a.addresses))
        ]

    def excerpt(self, addresses: set[int] | list[int]) -> str:
        """The listing around these instructions, with their source lines, for a message."""
        return _listing.render_slice(self.program, self.kernel, addresses)
