"""Assertions over a compiled kernel, as plain Python: `KernelUnderTest` wraps an Inspection.

    k = KernelUnderTest(sassview.inspect("vecadd.cu", kernel="add_f4")[0])
    k.assert_no_spills()
    k.assert_load_width(">=128", lines=(6, 8))
    k.assert_count("LDG.E.128*", 2)
    k.filecheck("CHECK: LDG.E.128\\nCHECK-NOT: STL")

Each assertion reads the Inspection's facts and annotations (the analyses' answers) and raises
an AssertionError subclass (sassview.testing.failures) whose message stands on its own. No
pytest here: the plugin only builds these objects; any test runner can use them.

Scopes: `lines=7`, `lines=(10, 14)` (inclusive) select instructions whose source line, or any
call site they were inlined into, is in range in the kernel's main file; `loop=0` or
`loop=k.loop(line=9)` select the instructions of one SASS loop (nested loops included).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from sassview.analyses.records_memory import SpillFacts
from sassview.inspection import Inspection
from sassview.report import listing as _listing
from sassview.testing.failures import (
    CountMismatch,
    SpillsFound,
    TooManyRegisters,
    compare,
    compose,
    counted,
    holds,
    spec_text,
)
from sassview.testing.patterns import opcode_of
from sassview.testing.snapshot import SnapshotSlot
from sassview.testing.subject import Lines, LoopRef, Subject

__all__ = ["KernelUnderTest", "Lines", "LoopRef"]


class KernelUnderTest(Subject):
    """One compiled kernel (one architecture, one variant) and the questions a test asks it."""

    def __init__(
        self,
        inspection: Inspection,
        *,
        memo: dict[str, Any] | None = None,
        snapshots: SnapshotSlot | None = None,
    ) -> None:
        super().__init__(inspection, memo=memo)
        self._snapshots = snapshots

    def __repr__(self) -> str:
        return f"<KernelUnderTest {self.describe()}>"

    # -- text ------------------------------------------------------------------------------

    def ptx_text(self) -> _listing.Listing:
        """This kernel's PTX function, as the compiler wrote it."""
        return _listing.Listing(_listing.ptx_listing(self.program, self.kernel)[0])

    def normalized(self, on: str = "sass", *, source: bool = False) -> _listing.Listing:
        """The canonical listing snapshots keep (see sassview.report.normalize)."""
        from sassview.report.normalize import normalize_ptx, normalize_sass

        if on == "ptx":
            return normalize_ptx(self.ptx_text())
        return normalize_sass(self.kernel, source=source)

    def count(
        self, pattern: str, *, loop: LoopRef | None = None, lines: Lines | None = None
    ) -> int:
        """How many instructions in scope match an opcode pattern (`LDG.E.128*`, `HGMMA.64x*`)."""
        return len(self.instructions(pattern, loop=loop, lines=lines))

    # -- assertions ------------------------------------------------------------------------

    def assert_no_spills(self) -> None:
        """No register spills (SpillRefill LDL/STL, or spill bytes in the ptxas report)."""
        __tracebackhide__ = True
        f = self.inspection.typed_facts(SpillFacts)
        if not f.spills:
            return
        notes = self.findings(("spill",))
        marked = sorted({a for n in notes for a in n.addresses})
        raise SpillsFound(
            compose(
                f"{self.describe()} spills registers: {f.spill_store_bytes} bytes stored, "
                f"{f.spill_load_bytes} bytes loaded per thread",
                expected="no spills",
                found=f"{f.spill_stores} spill stores and {f.spill_loads} spill loads, "
                f"{f.registers} registers (limit {f.register_limit})",
                findings=notes,
                listing=self.excerpt(marked),
            )
        )

    def assert_max_registers(self, limit: int) -> None:
        """At most `limit` registers per thread (what the cubin says the kernel allocates)."""
        __tracebackhide__ = True
        used = self.resources.registers
        if used <= limit:
            return
        live = self.inspection.liveness
        peak, where = live.peak, ""
        marked = []
        if 0 <= live.peak_index < len(self.kernel.instructions):
            ins = self.kernel.instructions[live.peak_index]
            marked = [ins.address]
            where = f" at /*{ins.address:04x}*/" + (
                f" (line {ins.source.line})" if ins.source else ""
            )
        raise TooManyRegisters(
            compose(
                f"{self.describe()} uses {used} registers per thread, more than {limit}",
                expected=f"<= {limit} registers",
                found=f"{used} registers; peak live {peak}{where}",
                findings=self.findings(("spill",)),
                listing=self.excerpt(marked),
            )
        )

    def assert_uses(self, what: str) -> None:
        """The kernel uses a feature (wgmma, mma.sync, tcgen05, tensor cores, cp.async, tma,
        bulk copies, ldmatrix, stmatrix, mbarrier, barriers, shared memory, local memory) or
        an instruction matching an opcode pattern (`HGMMA.64x*`)."""
        __tracebackhide__ = True
        from sassview.testing.features import check_feature

        check_feature(self, what, want=True)

    def assert_does_not_use(self, what: str) -> None:
        """The opposite of assert_uses: e.g. `assert_does_not_use("local memory")`."""
        __tracebackhide__ = True
        from sassview.testing.features import check_feature

        check_feature(self, what, want=False)

    def assert_unrolled(
        self,
        *,
        line: int,
        factor: int | str | None = None,
        copies: int | None = None,
        inlined_at: int | Sequence[int] | None = None,
    ) -> None:
        """The source loop at `line` (in any file) is unrolled: by exactly `factor` copies per
        trip (an int), fully ("full": no loop left), fully into `copies` copies per execution
        of the statement (each level of a nest its own), or at all (None: more than one copy,
        or fully). `inlined_at` picks the inline context by its call lines (innermost first);
        without it every context of the loop must hold."""
        __tracebackhide__ = True
        from sassview.testing.unrolling import check_unrolled

        check_unrolled(self, line, factor, copies, inlined_at)

    def assert_load_width(
        self,
        bits: int | str,
        *,
        lines: Lines | None = None,
        loop: LoopRef | None = None,
        space: str | None = "global",
    ) -> None:
        """Every load in scope moves `bits` per thread (`128`, `">=64"`); `space` global,
        shared, local, constant, generic or None for all. Fails when scope has no load."""
        __tracebackhide__ = True
        from sassview.testing.widths import check_width

        check_width(self, bits, "load", space, loop, lines)

    def assert_store_width(
        self,
        bits: int | str,
        *,
        lines: Lines | None = None,
        loop: LoopRef | None = None,
        space: str | None = "global",
    ) -> None:
        """assert_load_width, for stores."""
        __tracebackhide__ = True
        from sassview.testing.widths import check_width

        check_width(self, bits, "store", space, loop, lines)

    def assert_coalesced(
        self,
        *,
        lines: Lines | None = None,
        loop: LoopRef | None = None,
        direction: str | None = None,
    ) -> None:
        """Every global access in scope (loads, stores, atomics; or one `direction`) touches
        the fewest 32-byte sectors per warp its width allows; an unknown address fails."""
        __tracebackhide__ = True
        from sassview.testing.memory_use import check_coalesced

        check_coalesced(self, direction, loop, lines)

    def assert_sectors(self, *, line: int, max: int) -> None:
        """Every global access on `line` touches at most `max` 32-byte sectors per warp."""
        __tracebackhide__ = True
        from sassview.testing.memory_use import check_sectors

        check_sectors(self, line, max)

    def assert_no_bank_conflicts(
        self, *, lines: Lines | None = None, loop: LoopRef | None = None
    ) -> None:
        """Every shared access in scope needs the fewest wavefronts per warp its width allows
        (no n-way bank conflict); an unknown address fails."""
        __tracebackhide__ = True
        from sassview.testing.memory_use import check_no_bank_conflicts

        check_no_bank_conflicts(self, loop, lines)

    def assert_count(
        self,
        pattern: str,
        expected: int | str,
        *,
        loop: LoopRef | None = None,
        lines: Lines | None = None,
    ) -> None:
        """The number of instructions matching `pattern` in scope is `expected` (`4`, `">=2"`)."""
        __tracebackhide__ = True
        op, value = compare(expected)
        found = self.instructions(pattern, loop=loop, lines=lines)
        if holds(len(found), op, value):
            return
        scope, where = self.scope(loop, lines)
        opcode = opcode_of(pattern)
        near = [
            i
            for i in self.instructions(loop=loop, lines=lines)
            if opcode and i.opcode == opcode and i not in found
        ]
        hits = {i.address for i in found + near}
        hints = [(a.message, a.hint) for a in self.findings(("merge-candidate",), hits)]
        raise CountMismatch(
            compose(
                f"{self.describe()}: {len(found)} instructions match {pattern!r} {where}, "
                f"expected {spec_text(op, value)}",
                expected=f"{spec_text(op, value)} x {pattern}",
                found=counted(i.mnemonic for i in found),
                near_miss=(
                    [(f"same opcode, other modifiers: {counted(i.mnemonic for i in near)}", "")]
                    if near
                    else []
                )
                + hints,
                findings=self.findings(("narrow-access", "unroll"), hits if hits else scope),
                listing=self.excerpt([i.address for i in (found or near)]),
            )
        )

    def assert_occupancy(
        self,
        *,
        min_warps: int | None = None,
        min_blocks: int | None = None,
        min_percent: float | None = None,
        threads: int | None = None,
    ) -> None:
        """At least this many resident warps / blocks / percent of one SM's warp slots, at the
        kernel's block size (.reqntid, launch bounds, num_warps) or `threads` per block."""
        __tracebackhide__ = True
        from sassview.testing.occupancy import check_occupancy

        check_occupancy(
            self,
            min_warps=min_warps,
            min_blocks=min_blocks,
            min_percent=min_percent,
            threads=threads,
        )

    def assert_stall_cycles(
        self,
        *,
        line: int,
        max: int | None = None,  # noqa: A002 - the name the issue and the docs use
        min_math_share: float | None = None,
    ) -> None:
        """The innermost loop at `line` issues in at most `max` cycles per trip per warp (the
        stall counts ptxas encoded, summed over one trip), and spends at least
        `min_math_share` (0-1) of them on math; the main loop where a remainder loop exists."""
        __tracebackhide__ = True
        from sassview.testing.schedule import check_stall_cycles

        check_stall_cycles(self, line=line, max_cycles=max, min_math_share=min_math_share)

    # -- text checks -----------------------------------------------------------------------

    def filecheck(
        self, checks: str | os.PathLike[str], *, on: str = "sass", **options: Any
    ) -> None:
        """LLVM FileCheck of the listing (`on="sass"`, or `"ptx"`): `checks` is check text, or
        a path to a check file. Options as in sassview.testing.filecheck.Options
        (prefixes=("CHECK", "SM90"), implicit_check_not=("STL",), ...). Check text written in
        the calling file is reported at its own lines there."""
        __tracebackhide__ = True
        from sassview.testing.textcheck import check_listing

        check_listing(self, checks, on, options, sys._getframe(1))

    def snapshot(self, name: str | None = None, *, on: str = "sass", source: bool = False) -> None:
        """Compare the normalised listing with its snapshot file (pytest --sassview-update writes
        it). `name` tells apart several snapshots of one kernel in one test."""
        __tracebackhide__ = True
        if self._snapshots is None:
            raise RuntimeError(
                "snapshot() needs the sassview_kernel pytest fixture, which knows "
                "where the test lives and whether to update"
            )
        self._snapshots.assert_matches(
            self.normalized(on, source=source), name=name or self.name, arch=self.arch, kind=on
        )
