"""The kernel's resources and verdicts, at the top: the answers `sassview check` gives.

Made from `sassview.report.summary.kernel_summary` — the same data the CLI report and the JSON
print — so the TUI cannot say something the report does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.widgets import Static

from sassview.analyses.facts import Pair
from sassview.report.json_types import KernelJson
from sassview.report.summary import kernel_summary
from sassview.report.words import finding_counts
from sassview.tui.state import KernelView

# The styles of a pair's emphasis (sassview/analyses/facts.py, Pair).
_EMPHASIS = {"": "", "strong": "bold magenta", "alert": "bold red"}
# Where an analysis' pair stands on the third line, by its name (one not listed: after these).
PAIR_ORDER = ("tensor", "widest", "loops")


def _bytes(n: int | None) -> str:
    return "?" if n is None else f"{n} B"


def header_text(view: KernelView, status: str = "", summary: KernelJson | None = None) -> Text:
    """The header's three lines; `summary` is `kernel_summary` of the view, when it is known."""
    k = summary if summary is not None else kernel_summary(view.inspection)
    r, a = k["resources"], k["analysis"]
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(view.title, style="bold")
    if status:
        out.append(f"  {status}", style="italic dim")
    out.append("\n")
    spills = "none"
    if r["spill_store_bytes"] is None:
        spills = "spills" if a["spills"] else "none"
    elif r["spill_store_bytes"] or r["spill_load_bytes"]:
        spills = f"st {r['spill_store_bytes']} B / ld {r['spill_load_bytes']} B"
    _pair(out, "regs", str(r["registers"]))
    _pair(out, "spills", spills, "bold red" if a["spills"] else "")
    _pair(out, "shared", _bytes(r["shared_bytes"]))
    _pair(out, "local", _bytes(r["local_bytes"]), "red" if r["local_bytes"] else "")
    _pair(out, "stack", _bytes(r["stack_frame_bytes"]))
    _pair(out, "instrs", str(k["instruction_count"]))
    _pair(out, "peak live", str(a["register_peak"]["live"]))
    out.append("\n")
    for name, value, emphasis in _analysis_pairs(view, a):
        _pair(out, name, value, _EMPHASIS.get(emphasis, ""))
    counts = finding_counts(a["severity"] for a in k["annotations"])
    if counts:
        _pair(out, "findings", counts, "yellow")
    out.rstrip()
    return out


def _analysis_pairs(view: KernelView, a: Mapping[str, Any]) -> list[Pair]:
    """Every analysis' pairs (its facts record's `header`), in the registry's order, placed by
    PAIR_ORDER."""
    found = view.inspection.findings.values()
    pairs = [p for f in found for p in f.facts.header(a)]
    rank = {name: i for i, name in enumerate(PAIR_ORDER)}
    return sorted(pairs, key=lambda p: rank.get(p.name, len(rank)))


def _pair(out: Text, name: str, value: str, style: str = "") -> None:
    out.append(f"{name} ", style="dim")
    out.append(value, style=style or "")
    out.append("  ")


class KernelHeader(Static):
    """Three lines: the kernel, its resources, its verdicts. The summary is made once per
    kernel shown (a 65k-instruction kernel's took tens of ms, and every status change repaints
    the header), and forgotten with it."""

    _shown: tuple[KernelView, KernelJson] | None = None

    def show(self, view: KernelView | None, status: str = "") -> None:
        if view is None:
            self.update(Text(status or "sassview", style="bold"))
            return
        if self._shown is None or self._shown[0] is not view:
            self._shown = (view, kernel_summary(view.inspection))
        self.update(header_text(view, status, self._shown[1]))
