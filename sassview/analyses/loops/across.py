"""Loops that ptxas treats differently across the architectures of one run: a constant-trip
loop fully unrolled on one architecture and left rolled on another (an 8-trip inner loop
ptxas copies out for sm_80 and keeps as a loop on sm_90a). Each architecture's census says
only "not unrolled" or "fully unrolled"; the difference is what an expert wants flagged.

A loop is the same statement in the same inline context (file, line, call-site lines) of a
kernel of the same name. Only loops nothing was asked of: a request that was not met is the
census' own warning on that architecture. The words are here, once: `check` prints them and
`--json` carries them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sassview.analyses.loops.entry import LoopEntry

_Where = tuple[str, str | None, int, tuple[tuple[str, int], ...]]  # kernel, file, line, sites


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchDifference:
    """One constant-trip loop rolled on some architectures and fully unrolled on others."""

    kernel: str
    entry: LoopEntry  # as one of the rolled architectures has it
    rolled: tuple[tuple[str, int | None], ...]  # (arch, factor of its main SASS loop)
    unrolled: tuple[tuple[str, int | None], ...]  # (arch, copies)

    @property
    def message(self) -> str:
        """`loop at line 27: 8 iterations known at compile time, rolled on sm_90a (not
        unrolled), fully unrolled on sm_80 (8 copies)`."""
        rolled = ", ".join(f"{a} ({_factor(f)})" for a, f in self.rolled)
        unrolled = ", ".join(f"{a} ({_copies(c)})" for a, c in self.unrolled)
        return (
            f"{self.entry.where}: {self.entry.trip_count} iterations known at compile time, "
            f"rolled on {rolled}, fully unrolled on {unrolled}"
        )

    @property
    def hint(self) -> str:
        # Imported here: findings (and graph.loops through it) is no part of a loop-free check
        from sassview.analyses.loops.findings import words

        w = words(self.entry)
        full, rolled = w.full or "#pragma unroll", w.rolled
        return (
            f"ptxas weighs code size per architecture: {full} asks for full unrolling on "
            f"every one, {rolled} keeps it rolled on every one"
        )

    def to_json(self) -> dict[str, object]:
        e = self.entry
        return {
            "kernel": self.kernel,
            "source_line": e.line,
            "file": e.file,
            "inlined_at": [{"file": c.file, "line": c.line} for c in e.inlined_at],
            "trip_count": e.trip_count,
            "rolled": [{"arch": a, "factor": f} for a, f in self.rolled],
            "unrolled": [{"arch": a, "copies": c} for a, c in self.unrolled],
            "message": self.message,
            "hint": self.hint,
        }


def _factor(f: int | None) -> str:
    return "factor unknown" if f is None else "not unrolled" if f == 1 else f"unrolled by {f}"


def _copies(n: int | None) -> str:
    return "copies unknown" if n is None else f"{n} {'copy' if n == 1 else 'copies'}"


def arch_differences(
    kernels: Iterable[tuple[str, str, Sequence[LoopEntry]]],
) -> list[ArchDifference]:
    """The differences among (arch, kernel, census entries) of one run, in the order the loops
    first appear. `kernel` names the kernel and its variant: variants of one arch that differ
    (another constant) are no difference of architectures."""
    seen: dict[_Where, list[tuple[str, LoopEntry]]] = {}
    for arch, kernel, entries in kernels:
        for e in entries:
            constant = e.statement and e.line is not None and (e.trip_count or 0) > 1
            if constant and e.requested is None and e.kind in ("rolled", "full"):
                sites = tuple((c.file, c.line) for c in e.inlined_at)
                seen.setdefault((kernel, e.file, e.line or 0, sites), []).append((arch, e))
    out = []
    for (kernel, *_), found in seen.items():
        rolled = [(a, e) for a, e in found if e.kind == "rolled"]
        unrolled = [(a, e) for a, e in found if e.kind == "full"]
        if rolled and unrolled and not {a for a, _ in rolled} & {a for a, _ in unrolled}:
            out.append(
                ArchDifference(
                    kernel=kernel,
                    entry=rolled[0][1],
                    rolled=tuple((a, e.factor) for a, e in rolled),
                    unrolled=tuple((a, e.copies) for a, e in unrolled),
                )
            )
    return out
