"""Human text for `sassview check`, from the summary dict (so text and JSON cannot disagree)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sassview.analyses import facts_records
from sassview.analyses.facts import Row
from sassview.analyses.records import role_of
from sassview.report.json_types import AnnotationJson, KernelJson, ProgramJson
from sassview.report.words import finding_counts, spills_row

if TYPE_CHECKING:
    from sassview.analyses.loops.across import ArchDifference
    from sassview.inspection import Inspection

# Findings a table of variants (sweep, try) cannot show in a cell, printed under it.
TABLE_NOTES = ("maxrregcount-ignored",)


def _bytes(n: int | None) -> str:
    return "-" if n is None else f"{n} B"


def render_kernel(k: KernelJson) -> str:
    r = k["resources"]
    marked = int(k["analysis"].get("spill_instructions") or 0)
    spills = spills_row(r["spill_store_bytes"], r["spill_load_bytes"], marked)
    bounds = "-"
    if r["reqntid"]:
        bounds = "reqntid " + "x".join(map(str, r["reqntid"]))
    elif r["maxntid"]:
        bounds = "max " + "x".join(map(str, r["maxntid"])) + " threads"
    if r["min_blocks_per_sm"]:
        bounds += f", min {r['min_blocks_per_sm']} blocks/SM"
    shared = _bytes(r["shared_bytes"])
    if r["shared_reserved_bytes"]:
        shared += f" (+{r['shared_reserved_bytes']} B reserved)"
    if r.get("shared_dynamic_bytes"):
        shared += f" + {r['shared_dynamic_bytes']} B dynamic"
    const = ", ".join(f"bank{b} {s} B" for b, s in r["constant_bytes"].items()) or "-"
    mix = ", ".join(f"{c} {n}" for c, n in k["mix"].items())
    kind = "" if k["is_entry"] else "  [device function]"
    rows = [
        ("registers", str(r["registers"]), "stack frame", _bytes(r["stack_frame_bytes"])),
        ("spills", spills, "local memory", _bytes(r["local_bytes"])),
        ("shared memory", shared, "constant", const),
        ("launch bounds", bounds, "barriers", str(r["barriers"])),
    ]
    lines = [f"{k['display_name']}{kind}"]
    if k["display_name"] != k["name"] and not k["name"].startswith("_Z"):
        lines.append(f"  symbol {k['name']}")  # a short name sassview made (CuTe DSL): once here
    # The second column widens for a long value (shared memory with reserved and dynamic
    # bytes) rather than running into the third.
    width = max(28, *(len(b) + 1 for _, b, _, _ in rows))
    for a, b, c, d in rows:
        lines.append(f"  {a:<14} {b:<{width}} {c:<13} {d}")
    lines.append(f"  {'instructions':<14} {k['instruction_count']:<{width}} mix: {mix}")
    lines += _analysis_lines(k["analysis"])
    # a warp-specialised kernel's findings are grouped by role (analyses/warp_roles.py)
    lines += _findings(k["annotations"], k["analysis"].get("warp_roles") or [])
    return "\n".join(lines)


# Where a row stands among the rows under a kernel, by its name (the view's layout: a row of
# an analysis not listed comes after these, in the registry's order).
ROW_ORDER = (
    *("tensor cores", "widest access", "async copies", "loops", "partition"),
    *("register peak", "memory use", "occupancy", "reg budgets", "schedule"),
)


def _analysis_lines(a: Mapping[str, Any]) -> list[str]:
    """Every analysis' rows (its facts record's `check_rows`, from the summary alone), placed
    by ROW_ORDER; the register peak (the kernel's liveness) among them."""
    groups = [record.check_rows(a) for record in facts_records()]
    groups.append(_peak_row(a["register_peak"]))
    groups = [g for g in groups if g]
    rank = {name: i for i, name in enumerate(ROW_ORDER)}
    groups.sort(key=lambda g: rank.get(g[0].name, len(rank)))  # stable: the registry's order
    return [f"  {name:<14} {text}" for g in groups for name, text in g]


def _peak_row(peak: Mapping[str, Any]) -> list[Row]:
    if peak["address"] is None:
        return []
    where = f" ({peak['source']})" if peak["source"] else ""
    return [Row("register peak", f"{peak['live']} live at /*{peak['address']:04x}*/{where}")]


def _finding_role(a: Mapping[str, Any], roles: list[dict[str, Any]]) -> str | None:
    """The one role all of a finding's source lines lie in, if there is one."""
    if not roles or not a["source"]:
        return None
    lines = {text.rpartition(":")[2] for text in a["source"]}
    found = {r["name"] if (r := role_of(int(n), roles)) else None for n in lines if n.isdigit()}
    return found.pop() if len(found) == 1 else None


def _findings(annotations: Sequence[AnnotationJson], roles: list[dict[str, Any]]) -> list[str]:
    """Warnings, notes, and the INFO findings whose hint names a knob (a standing, tried or
    untried: steer/standing.py); the other INFO findings are summed up in the lines above,
    and counted here, so the count is the TUI's. In a warp-specialised kernel each is tagged
    with its role (`[producer]`), grouped by role."""
    if not annotations:
        return []
    shown = [a for a in annotations if a["severity"] != "info" or a.get("standing")]
    lines = [f"  findings ({_counted(annotations, shown)})"]
    tagged = [(_finding_role(a, roles), a) for a in shown]
    order = [r["name"] for r in roles]
    tagged.sort(key=lambda t: order.index(t[0]) if t[0] in order else len(order))  # stable
    for role, a in tagged:
        tag = f"[{role}] " if role else ""
        lines.append(f"    {a['severity']:<8} {tag}{a['kind']}: {a['message']}")
        if a["hint"]:
            lines.append(f"    {'':<8} hint: {a['hint']}")
    return lines


def _counted(annotations: Sequence[AnnotationJson], shown: list[AnnotationJson]) -> str:
    """`1 warning; 3 info in the lines above`, `2 info, 1 of them in the lines above`."""
    worse = finding_counts(a["severity"] for a in annotations if a["severity"] != "info")
    info = sum(a["severity"] == "info" for a in annotations)
    above = len(annotations) - len(shown)
    if not info:
        return worse
    said = f"{info} info" + (
        ""
        if not above
        else " in the lines above"
        if above == info
        else f", {above} of them in the lines above"
    )
    return f"{worse}; {said}" if worse else said


def render_program(p: ProgramJson) -> str:
    head = f"== {p['source'] or '<source>'} · {p['arch']}"
    if p["label"]:
        head += f" · {p['label']}"
    if p.get("compiler"):
        head += f" · {p['compiler']}"
    # Another release than the installed one (a Triton kernel's producer names its ptxas).
    if (p.get("toolchain") or {}).get("stored") and p.get("compiler") == "nvrtc":
        head += f" {p['toolchain']['nvrtc']} (toolchain {p['toolchain']['stored']})"
    if p["producer"]:
        head += f" · {p['producer']}"
    if p["elf_abi_version"] is not None:
        head += f" (ELF ABI {p['elf_abi_version']})"
    body = [render_kernel(k) for k in p["kernels"]] or ["  (no kernels)"]
    return "\n".join([head, *body, ""])


def arch_notes(differences: Iterable[ArchDifference]) -> list[str]:
    """`note: across sm_80, sm_90a · <kernel>: <loop rolled on one, unrolled on the other>`
    and its hint, after the programs of one input."""
    out = []
    for d in differences:
        archs = ", ".join(sorted({a for a, _ in (*d.rolled, *d.unrolled)}))
        out += [f"note: across {archs} · {d.kernel}: {d.message}", f"  hint: {d.hint}", ""]
    return out


def table_notes(inspections: Iterable[Inspection]) -> list[str]:
    """`note: <variant> · <kernel>: <finding>` and its hint, for each TABLE_NOTES finding."""
    out: dict[tuple[str, str], None] = {}
    for insp in inspections:
        where = insp.program.artifacts.label or insp.program.artifacts.source_path or "<source>"
        for a in insp.annotations:
            if a.kind in TABLE_NOTES:
                out[(f"note: {where} · {insp.kernel.display_name}: {a.message}", a.hint)] = None
    return [line for note, hint in out for line in (note, f"  hint: {hint}")]
