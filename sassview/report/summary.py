"""The per-kernel facts `sassview check` reports, as plain data (the JSON output's schema).

Documented in docs/json.md; `schema_version` changes whenever a field changes meaning or goes.
The human report (views/render.py) is made from this same data, so text and JSON cannot disagree.
A kernel's `analysis` is every registered analysis' keys, each given by its facts record
(`Facts.summary`, sassview/analyses/facts.py): nothing here names an analysis. The document's
types are report/json_types.py's.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, cast

from sassview.analyses import Annotation
from sassview.inspection import Inspection
from sassview.ir import SCHEMA_VERSION, Kernel, Program, SourceLoc
from sassview.opcodes import MOVES_AS_MATH, category, instruction_category
from sassview.report.json_types import (
    AnalysisJson,
    AnnotationJson,
    CheckDocument,
    KernelJson,
    ProgramJson,
    RegisterPeakJson,
    ResourcesJson,
    StandingJson,
)

_REGISTER_ORDER = re.compile(r"([A-Z]+)(\d+)")
_FILE, _LINE, _INLINED = (operator.attrgetter(n) for n in ("file", "line", "inlined_at"))
_OPCODE = operator.attrgetter("opcode")


def _resources(kernel: Kernel) -> ResourcesJson:
    r = kernel.resources
    return {
        "registers": r.registers,
        "stack_frame_bytes": r.stack_frame,
        "spill_store_bytes": r.spill_store_bytes,
        "spill_load_bytes": r.spill_load_bytes,
        "shared_bytes": r.shared_user,
        "shared_reserved_bytes": r.shared_reserved,
        "shared_dynamic_bytes": r.shared_dynamic,
        "local_bytes": r.local,
        "constant_bytes": {str(bank): size for bank, size in sorted(r.constant.items())},
        "max_threads": r.max_threads,
        "maxntid": list(r.maxntid) if r.maxntid else None,
        "reqntid": list(r.reqntid) if r.reqntid else None,
        "min_blocks_per_sm": r.min_blocks_per_sm,
        "max_registers": r.max_registers,
        "barriers": r.barriers,
        "param_bytes": r.param_bytes,
    }


def _source_text(loc: Any) -> str:
    outer = loc.outermost
    return f"{outer.file}:{outer.line}"


def _source_texts(locs: Sequence[SourceLoc]) -> list[str]:
    """The sorted distinct "file:line" of the outermost frames of `locs`.

    The 65k benchmark kernel's 32 findings name 94k source lines, every one of which the JSON
    lists, so the walk is as long as the output; it is made cheap instead. The fields are read
    by `map` (in C), and where the lines share one file (the usual case, and inlined code's
    outermost frames too) they stay ints until the distinct ones are formatted: 48 -> 19 ms
    for those 94k, the same lists (a set of tuples, then formatting each, cost the rest)."""
    outer = [loc.outermost for loc in locs] if any(map(_INLINED, locs)) else locs
    files = set(map(_FILE, outer))
    if len(files) == 1:
        (file,) = files
        return sorted([f"{file}:{line}" for line in set(map(_LINE, outer))])
    # "file:line" is one (file, line) pair: the line, an int, has no ":" to blur them
    return sorted({f"{loc.file}:{loc.line}" for loc in outer})


def annotation_data(a: Annotation) -> AnnotationJson:
    return {
        "kind": a.kind,
        "severity": a.severity.name.lower(),
        "message": a.message,
        "hint": a.hint,
        "addresses": list(a.addresses),
        "loops": list(a.loops),
        "source": _source_texts(a.source),
        "standing": _standing(a),
    }


def _standing(a: Annotation) -> StandingJson | None:
    """Whether the hint's knob was tried (steer/standing.py); None: no knob (advice)."""
    s = a.standing
    if s is None:
        return None
    return {"state": s.state, "knob": s.knob, "outcome": s.outcome, "fix": s.is_fix}


def _register_key(name: str) -> tuple[str, int]:
    m = _REGISTER_ORDER.fullmatch(name)
    return (m.group(1), int(m.group(2))) if m else (name, 0)


# The keys of a kernel's `analysis`, in the order the JSON writes them (docs/json.md).
_ANALYSIS_KEYS = tuple(AnalysisJson.__annotations__)


def _analysis(insp: Inspection) -> AnalysisJson:
    """Every analysis' keys (its facts record's `summary`, sassview/analyses/facts.py), in
    `AnalysisJson`'s order; the keys of an analysis it does not name after them."""
    given: dict[str, Any] = {}
    for findings in insp.findings.values():
        given.update(findings.facts.summary(insp))
    given["register_peak"] = _register_peak(insp)
    known = {k: given.pop(k) for k in _ANALYSIS_KEYS if k in given}
    return cast(AnalysisJson, {**known, **given})


def _register_peak(insp: Inspection) -> RegisterPeakJson:
    live = insp.liveness
    peak_ins = insp.kernel.instructions[live.peak_index] if insp.kernel.instructions else None
    return {
        "live": live.peak,
        "address": peak_ins.address if peak_ins else None,
        "source": _source_text(peak_ins.source) if peak_ins and peak_ins.source else None,
        "registers": sorted(live.live_at(live.peak_index), key=_register_key),
    }


def _mix(kernel: Kernel) -> tuple[dict[str, int], dict[str, int]]:
    """(opcode -> count, category -> count) of the kernel's instructions, NOPs left out.
    Counted by opcode (Counter, in C), each opcode's count then going to its category whole,
    but for the opcodes that can be a move (opcodes.MOVES_AS_MATH), read one by one: the same
    counts as `instruction_category` of each instruction, 65k instructions in 3 ms, not 15."""
    opcodes = Counter(map(_OPCODE, kernel.instructions))
    del opcodes["NOP"]
    mix: dict[str, int] = {}
    for opcode, count in opcodes.items():
        if opcode in MOVES_AS_MATH:
            continue
        mix[category(opcode)] = mix.get(category(opcode), 0) + count
    for ins in kernel.instructions if not MOVES_AS_MATH.isdisjoint(opcodes) else ():
        if ins.opcode in MOVES_AS_MATH:
            cat = instruction_category(ins)
            mix[cat] = mix.get(cat, 0) + 1
    return dict(sorted(opcodes.items())), mix


def kernel_summary(insp: Inspection) -> KernelJson:
    kernel = insp.kernel
    opcodes, mix = _mix(kernel)
    return {
        "name": kernel.name,
        "display_name": kernel.display_name,
        "arch": kernel.arch,
        "is_entry": kernel.is_entry,
        "resources": _resources(kernel),
        "instruction_count": sum(mix.values()),
        "mix": dict(sorted(mix.items(), key=lambda kv: (-kv[1], kv[0]))),
        "opcodes": opcodes,
        "analysis": _analysis(insp),
        "annotations": [annotation_data(a) for a in insp.annotations],
    }


def program_summary(program: Program, inspections: list[Inspection]) -> ProgramJson:
    a = program.artifacts
    return {
        "source": a.source_path,
        "label": a.label or None,  # kernel.py declarations: the kernel and its variant
        "variant": dict(a.variant),
        "kind": a.kind,
        "compiler": a.compiler or None,  # CUDA C++: "nvrtc" or "nvcc"
        "arch": program.arch,
        # The cubin's own note; the older ABI Triton's ptxas writes has none: say which ran.
        "producer": program.producer
        or (f"ptxas {a.toolchain['ptxas']}" if a.toolchain.get("ptxas") else ""),
        "elf_abi_version": program.abi_version,
        "options": list(a.options),
        "toolchain": dict(a.toolchain),
        "kernels": [kernel_summary(i) for i in inspections],
    }


def check_document(
    programs: list[ProgramJson], toolchain: dict[str, str], across: Sequence[Any] = ()
) -> CheckDocument:
    """The `check --json` document; `across`: the loops' `ArchDifference`s (loops/across.py)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "sassview": _version(),
        "toolchain": toolchain,
        "programs": programs,
        "loops_across_archs": [d.to_json() for d in across],
    }


def _version() -> str:
    from sassview import __version__

    return __version__
