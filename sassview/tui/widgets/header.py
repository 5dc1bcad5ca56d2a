"""The kernel's resources and verdicts, at the top: the answers `sassview check` gives.

Made from `sassview.views.summary.kernel_summary` — the same data the CLI report and the JSON
print — so the TUI cannot say something the report does not.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from sassview.tui.state import KernelView
from sassview.views.render import finding_counts
from sassview.views.summary import kernel_summary


def _bytes(n: int | None) -> str:
    return "?" if n is None else f"{n} B"


def _bits(n: int | None) -> str:
    return "-" if n is None else str(n)


def loop_verdict(e: dict[str, Any]) -> str:
    """`l7 x4+rem`, `l14@73 full x8` (inlined at line 73): the loop's line and what unrolling
    achieved (see views/render.py)."""
    where = f"l{e['source_line']}" if e["source_line"] is not None else "loop"
    if e.get("inlined_at"):
        where += "@" + "<".join(str(c["line"]) for c in e["inlined_at"])
    f = e["achieved_factor"]
    if e.get("kind") == "gone":
        text = f"{where} gone"
    elif not e["has_back_edge"]:
        text = f"{where} full x{'?' if f is None else f}"
    elif f is None:
        text = f"{where} x?"
    else:
        text = f"{where} " + ("x1" if f == 1 else f"x{f}") + ("+rem" if e["remainder"] else "")
    want = e["requested_factor"]
    if want is not None:
        text += f" (asked {want})"
    return text


def header_text(view: KernelView, status: str = "") -> Text:
    k = kernel_summary(view.inspection)
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
    tc = a["tensor_core_path"]
    if a["wgmma_serialized"]:
        _pair(out, "tensor", f"{tc} (serialized)", "bold red")
    else:
        _pair(out, "tensor", tc, "bold magenta" if tc != "none" else "")
    widest = (
        f"G ld {_bits(a['max_global_load_bits'])} st {_bits(a['max_global_store_bits'])}"
        f" · S ld {_bits(a['max_shared_load_bits'])} st {_bits(a['max_shared_store_bits'])}"
    )
    _pair(out, "widest", widest)
    loops = ", ".join(loop_verdict(e) for e in a["loops"]) or "none"
    _pair(out, "loops", loops)
    counts = finding_counts(a["severity"] for a in k["annotations"])
    if counts:
        _pair(out, "findings", counts, "yellow")
    out.rstrip()
    return out


def _pair(out: Text, name: str, value: str, style: str = "") -> None:
    out.append(f"{name} ", style="dim")
    out.append(value, style=style or "")
    out.append("  ")


class KernelHeader(Static):
    """Three lines: the kernel, its resources, its verdicts."""

    def show(self, view: KernelView | None, status: str = "") -> None:
        if view is None:
            self.update(Text(status or "sassview", style="bold"))
        else:
            self.update(header_text(view, status))
