"""Human text for `sassview check`, from the summary dict (so text and JSON cannot disagree)."""

from __future__ import annotations

from typing import Any


def _bytes(n: int | None) -> str:
    return "-" if n is None else f"{n} B"


def render_kernel(k: dict[str, Any]) -> str:
    r = k["resources"]
    spills = "none"
    if r["spill_store_bytes"] is None:
        spills = "unknown (no ptxas report)"
    elif r["spill_store_bytes"] or r["spill_load_bytes"]:
        spills = f"{r['spill_store_bytes']} B stored, {r['spill_load_bytes']} B loaded"
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
    for a, b, c, d in rows:
        lines.append(f"  {a:<14} {b:<28} {c:<13} {d}")
    lines.append(f"  {'instructions':<14} {k['instruction_count']:<28} mix: {mix}")
    return "\n".join(lines)


def render_program(p: dict[str, Any]) -> str:
    head = f"== {p['source'] or '<source>'} · {p['arch']}"
    if p["producer"]:
        head += f" · {p['producer']}"
    if p["elf_abi_version"] is not None:
        head += f" (ELF ABI {p['elf_abi_version']})"
    body = [render_kernel(k) for k in p["kernels"]] or ["  (no kernels)"]
    return "\n".join([head, *body, ""])
