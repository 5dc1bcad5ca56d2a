"""Human text for `sassview check`, from the summary dict (so text and JSON cannot disagree)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sassview.report.words import finding_counts, spills_row, try_applies, widest_access

if TYPE_CHECKING:
    from sassview.analyses.loops.across import ArchDifference
    from sassview.inspection import Inspection

# Findings a table of variants (sweep, try) cannot show in a cell, printed under it.
TABLE_NOTES = ("maxrregcount-ignored",)


def _bytes(n: int | None) -> str:
    return "-" if n is None else f"{n} B"


def render_kernel(k: dict[str, Any]) -> str:
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
    lines += _findings(k["annotations"], k["analysis"].get("warp_roles") or [])
    return "\n".join(lines)


def _analysis_lines(a: dict[str, Any]) -> list[str]:
    rows = []
    if a["tensor_core_ops"]:
        ops = ", ".join(
            f"{op['count']}x {op['mnemonic']}" + (f" ({op['shape']})" if op["shape"] else "")
            for op in a["tensor_core_ops"]
        )
        serialized = "; serialized by ptxas" if a["wgmma_serialized"] else ""
        rows.append(("tensor cores", f"{a['tensor_core_path']}: {ops}{serialized}"))
    else:
        rows.append(("tensor cores", "none"))
    rows.append(("widest access", widest_access(a)))
    tma = a["tma"]
    if a["cp_async"] or tma["loads"] or tma["stores"]:
        rows.append(
            (
                "async copies",
                f"cp.async {a['cp_async']}, TMA loads {tma['loads']}, stores {tma['stores']}",
            )
        )
    roles = a.get("warp_roles") or []
    if roles:
        rows += [("loops", text) for text in role_loops(a["loops"], roles)]
    elif a["loops"]:
        rows.append(("loops", "; ".join(e["summary"] for e in a["loops"])))
    rows.extend(("partition", text) for text in a.get("partitions", ()))
    peak = a["register_peak"]
    if peak["address"] is not None:
        where = f" ({peak['source']})" if peak["source"] else ""
        rows.append(("register peak", f"{peak['live']} live at /*{peak['address']:04x}*/{where}"))
    if a.get("memory_use"):
        use = a["memory_use"]
        first, *more = _fit([*use["text"].split("; "), f"assumes {use['block']}"])
        rows.append(("memory use", first))
        rows.extend(("", line) for line in more)
    if a.get("occupancy"):
        rows.append(("occupancy", a["occupancy"]["text"]))
    if a.get("register_budget"):
        rows.append(("reg budgets", a["register_budget"]["text"]))
    waiting = {n for r in roles for w in r["waits"] for n in w["sass_loops"]}  # said above
    rows.extend(
        ("schedule", text)
        for text in _alike(
            loop["text"] for loop in a.get("schedule", ()) if loop["loop"] not in waiting
        )
    )
    return [f"  {name:<14} {text}" for name, text in rows]


def _finding_role(a: dict[str, Any], roles: list[dict[str, Any]]) -> str | None:
    """The one role all of a finding's source lines lie in, if there is one."""
    if not roles or not a["source"]:
        return None
    lines = {text.rpartition(":")[2] for text in a["source"]}
    found = {r["name"] if (r := role_of(int(n), roles)) else None for n in lines if n.isdigit()}
    return found.pop() if len(found) == 1 else None


def role_of(line: int | None, roles: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The warp role (analyses/warp_roles.py) whose lines hold `line`."""
    if line is None:
        return None
    return next((r for r in roles if r["first_line"] <= line <= r["last_line"]), None)


def role_loops(loops: list[dict[str, Any]], roles: list[dict[str, Any]]) -> list[str]:
    """One row per warp role, its loops and its wait loops folded into one clause
    (`mbarrier waits at lines 100, 106 (5 loops)`); then the loops outside every role."""
    waits = {(r["name"], w["line"]) for r in roles for w in r["waits"]}
    rows = []
    for role in roles:
        own = [e["summary"] for e in loops if role_of(e["source_line"], [role]) is role
               and (role["name"], e["source_line"]) not in waits]  # fmt: skip
        by_kind: dict[str, list[dict[str, Any]]] = {}
        for w in role["waits"]:
            by_kind.setdefault(w["kind"], []).append(w)
        for kind, found in by_kind.items():
            where = ", ".join(str(w["line"]) for w in found)
            count = sum(w["loops"] for w in found)
            plural = "s" if len(found) > 1 else ""
            own.append(
                f"{kind} wait{'s' if count > 1 else ''} at line{plural} {where}"
                + (f" ({count} loops)" if count > len(found) else "")
            )
        regs = f", setmaxnreg {role['setmaxnreg']}" if role["setmaxnreg"] else ""
        lines = f"lines {role['first_line']}-{role['last_line']}"
        cond = "" if role["condition"] == role["name"] else f"{role['condition']}: "
        head = f"{role['name']} ({cond}{lines}{regs})"
        rows.append(f"{head}: " + ("; ".join(own) or "no loops"))
    rest = [e["summary"] for e in loops if role_of(e["source_line"], roles) is None]
    if rest:
        rows.append("; ".join(rest))
    return rows


_ROW_TEXT = 80 - 17  # an 80-column terminal less the row's indent and name column


def _fit(parts: list[str]) -> list[str]:
    """Parts of a row ('global: ...', 'shared: ...', 'assumes ...') packed into lines that fit
    an 80-column terminal, joined by '; ' where two fit on one line, a long part wrapped at
    its words: every word is kept."""
    import textwrap

    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= _ROW_TEXT:
            lines[-1] += "; " + part
        else:
            lines.extend(textwrap.wrap(part, _ROW_TEXT, break_on_hyphens=False) or [part])
    return lines


def _alike(texts: Iterable[str]) -> list[str]:
    """Each text once, in first-seen order, with how many rows said it: a Hopper kernel's ten
    inline-asm wait loops are one row, not ten identical ones."""
    seen = Counter(texts)
    return [text if n == 1 else f"{text} (x{n} loops alike)" for text, n in seen.items()]


def _findings(annotations: list[dict[str, Any]], roles: list[dict[str, Any]]) -> list[str]:
    """Warnings, notes, and the INFO findings whose hint is a knob `sassview try` turns; the
    other INFO findings are summed up in the lines above, and counted here, so the
    count is the TUI's. In a warp-specialised kernel each is tagged with its role
    (`[producer]`), grouped by role."""
    if not annotations:
        return []
    shown = [a for a in annotations if a["severity"] != "info" or try_applies(a["hint"])]
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


def _counted(annotations: list[dict[str, Any]], shown: list[dict[str, Any]]) -> str:
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


def render_program(p: dict[str, Any]) -> str:
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
