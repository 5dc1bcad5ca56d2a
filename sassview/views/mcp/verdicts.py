"""One-line verdicts an agent can grep, read off the `check --json` document.

Each line is `WORD[-OK|-FAIL] where what`, one per fact, in the words check prints:

    UNROLL-OK line 9 x4             asked #pragma unroll 4, got 4 (FAIL: got something else)
    UNROLL line 12 x2               nothing asked; the compiler unrolled by 2 (x1: rolled)
    UNROLL line 20 full 8 copies    fully unrolled (`unknown` where the copies are not known)
    LDG128-OK line 14               the widest global load at that line is 128-bit
    LDG128-FAIL line 12 32-bit      narrower (a fact, not always a fault: scalar data stays so)
    STG128-FAIL line 30 64-bit      the same for global stores
    SPILLS-OK / SPILLS-FAIL 372 B   spill bytes stored + loaded per thread
    TENSOR-CORES wgmma              the tensor-core path (wgmma, mma.sync, tcgen05, none)
    REGISTERS 64                    per thread
    FINDING warning spill line 9    one per note or warning, most severe first; where its
        [untried: ...]              hint names a knob, its standing in check's words
        [not a fix: tried ...]      (steer/standing.py): untried, tried, or not a fix

They derive from the document alone, so they say nothing the JSON does not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any


def verdicts(document: Mapping[str, Any]) -> list[str]:
    """Every kernel's verdict lines, each prefixed with `kernel@arch:` when there are several."""
    kernels = [(p, k) for p in document.get("programs", []) for k in p.get("kernels", [])]
    lines = []
    for _program, k in kernels:
        prefix = f"{k['display_name'].split('(')[0]}@{k['arch']}: " if len(kernels) > 1 else ""
        lines += [prefix + line for line in kernel_verdicts(k)]
    return lines


def kernel_verdicts(kernel: Mapping[str, Any]) -> list[str]:
    analysis = kernel.get("analysis", {})
    lines = [f"REGISTERS {kernel['resources']['registers']}"]
    lines += [_unroll(entry) for entry in analysis.get("loops", []) if entry.get("statement")]
    lines += _widths(analysis.get("memory_use") or {})
    spilled = (analysis.get("spill_store_bytes") or 0) + (analysis.get("spill_load_bytes") or 0)
    lines.append(f"SPILLS-FAIL {spilled} B" if analysis.get("spills") else "SPILLS-OK")
    lines.append(f"TENSOR-CORES {analysis.get('tensor_core_path', 'none')}")
    for a in kernel.get("annotations", []):
        if a["severity"] in ("note", "warning"):
            where = _line_of(a)
            lines.append(
                f"FINDING {a['severity']} {a['kind']}"
                + (f" line {where}" if where else "")
                + _standing_words(a.get("standing"))
            )
    return lines


def _standing_words(standing: Mapping[str, Any] | None) -> str:
    """` [untried: ...]`, ` [not a fix: tried ...]`: the document's standing in the words
    check prints (HintStanding.words, the one wording); "" where the hint names no knob."""
    if not standing:
        return ""
    from sassview.analyses import HintStanding

    said = HintStanding(standing["state"], standing["knob"], standing.get("outcome", ""))
    return f" [{said.words()}]"


def _unroll(entry: Mapping[str, Any]) -> str:
    line = entry["source_line"]
    if entry["kind"] == "gone":
        return f"UNROLL line {line} gone (no code left)"
    if entry["kind"] == "full":
        copies = entry.get("copies")
        got = f"full {copies} copies" if copies is not None else "full, copies unknown"
    else:
        factor = entry.get("factor")
        got = f"x{factor}" if factor is not None else "factor unknown"
    asked = entry.get("requested_factor")
    if asked is None:
        return f"UNROLL line {line} {got}"
    met = (asked == "full" and entry["kind"] == "full") or (
        entry["kind"] == "rolled" and entry.get("factor") == asked
    )
    if entry.get("factor") is None and entry.get("copies") is None and entry["kind"] != "full":
        return f"UNROLL line {line} {got} (asked {asked})"
    verdict = "OK" if met else "FAIL"
    return f"UNROLL-{verdict} line {line} {got}" + ("" if met else f" (asked {asked})")


def _widths(memory: Mapping[str, Any]) -> list[str]:
    """The widest global load and store at each source line, 128-bit or not."""
    widest: dict[tuple[str, int], int] = defaultdict(int)
    for access in memory.get("global_accesses", []):
        line = access.get("source_line")
        if line is None or not access.get("bits") or access["direction"] not in _WORDS:
            continue
        key = (access["direction"], line)
        widest[key] = max(widest[key], access["bits"])
    lines = []
    for (direction, line), bits in sorted(widest.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        word = _WORDS[direction]
        lines.append(
            f"{word}-OK line {line}" if bits >= 128 else f"{word}-FAIL line {line} {bits}-bit"
        )
    return lines


_WORDS = {"load": "LDG128", "store": "STG128"}


def _line_of(annotation: Mapping[str, Any]) -> str:
    sources = annotation.get("source") or []
    return sources[0].rsplit(":", 1)[-1] if sources else ""
