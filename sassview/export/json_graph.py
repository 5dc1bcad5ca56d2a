"""One kernel's whole annotated graph as JSON, with a versioned schema (schema/graph.schema.json).

The document holds what the Inspection holds, in plain data: the program it came from, the
`check --json` summary of the kernel (so the two never disagree), every instruction with its
operands, inline chain, PTX line, block, loops, register counts and findings, the basic blocks
and edges, the loops, the PTX function with its source lines, the source lines with their PTX
lines and SASS addresses, every finding, and every analysis' facts.

Deterministic: keys sorted, lists in address / index order, no time stamps; file paths are the
display names of `PathNames` (never the compiling machine's absolute paths), which also rewrites
paths quoted inside facts and messages. `GRAPH_SCHEMA_VERSION` changes when a field changes
meaning or goes away; new fields may appear without a change (documented in docs/json.md).
"""

from __future__ import annotations

import enum
import json
import math
from collections.abc import Mapping
from importlib import resources
from typing import Any

from sassview.export.model import ExportView, PathNames
from sassview.ir import ControlCode, Operand, SourceLoc
from sassview.report.summary import kernel_summary

GRAPH_SCHEMA_VERSION = 1
FORMAT = "sassview-graph"


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) the documents of this version follow."""
    text = (resources.files("sassview.export") / "schema" / "graph.schema.json").read_text(
        encoding="utf-8"
    )
    data: dict[str, Any] = json.loads(text)
    return data


def _facts(facts: Mapping[str, Any], paths: PathNames) -> Any:
    """An analysis' facts as JSON. The unroll analysis' typed `entries` are left out: its
    `loops` are their JSON form (LoopEntry.to_json), written once."""
    return _plain({k: v for k, v in facts.items() if k != "entries"}, paths)


def _plain(value: Any, paths: PathNames) -> Any:
    """Facts and annotation data -> JSON values, paths rewritten, sets sorted."""
    if isinstance(value, SourceLoc):
        return _loc(value, paths)
    if isinstance(value, enum.Enum):
        return _plain(value.value, paths)
    if isinstance(value, Mapping):
        return {str(k): _plain(v, paths) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(
            (_plain(v, paths) for v in value), key=lambda v: json.dumps(v, sort_keys=True)
        )
    if isinstance(value, (list, tuple)):
        return [_plain(v, paths) for v in value]
    if isinstance(value, str):
        return paths.text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return paths.text(str(value))


def _loc(loc: SourceLoc | None, paths: PathNames) -> list[dict[str, Any]]:
    """An inline chain, innermost frame first; [] when unknown."""
    if loc is None:
        return []
    return [{"file": paths.name(f.file), "line": f.line, "column": f.column} for f in loc.frames()]


def _operand(op: Operand) -> dict[str, Any]:
    return {"text": op.text, "kind": op.kind.value, "registers": [str(r) for r in op.registers]}


def control_data(code: ControlCode | None) -> dict[str, Any] | None:
    """One instruction's control code as JSON (docs/json.md); None before sm_70."""
    if code is None:
        return None
    return {
        "notation": code.notation,
        "stall": code.stall,
        "yield": code.yield_hint,
        "write": code.write,
        "read": code.read,
        "wait": list(code.waits),
        "reuse": [slot for n, slot in enumerate("ABCD") if code.reuse >> n & 1],
    }


def _instructions(view: ExportView) -> list[dict[str, Any]]:
    insp = view.inspection
    counts = insp.liveness.counts
    loops_at: dict[int, list[int]] = {}
    for lp in sorted(insp.loops, key=lambda lp: (lp.depth, lp.index)):
        for a in lp.addresses:
            loops_at.setdefault(a, []).append(lp.index)
    out = []
    for row, ins in zip(view.rows, insp.kernel.instructions, strict=True):
        out.append({
            "index": row.index,
            "address": ins.address,
            "text": ins.text,
            "opcode": ins.opcode,
            "modifiers": list(ins.modifiers),
            "guard": ins.predicate_text or None,
            "operands": [_operand(op) for op in ins.operands],
            "source": _loc(ins.source, view.paths),
            "ptx_line": ins.ptx_line,
            "marks": list(ins.marks),
            "control_flow": ins.control_flow,
            "target": ins.target,
            "targets": list(ins.targets),
            "block": row.block,
            "loops": loops_at.get(ins.address, []),
            "live": {f: c[row.index] for f, c in sorted(counts.items()) if row.index < len(c)},
            "findings": list(row.findings),
            "flagged": row.flagged,
            "control": control_data(insp.kernel.control_at(ins.address)),
        })  # fmt: skip
    return out


def _cfg(view: ExportView) -> dict[str, Any]:
    insp = view.inspection
    flagged = view.flagged_addresses
    back = {edge for lp in insp.loops for edge in lp.back_edges}
    loops_of: dict[int, list[int]] = {}
    for lp in sorted(insp.loops, key=lambda lp: (lp.depth, lp.index)):
        for index in lp.blocks:
            loops_of.setdefault(index, []).append(lp.index)
    rows = view.rows
    blocks = []
    for b in insp.cfg.blocks:
        mine = rows[b.first : b.last + 1]
        blocks.append({
            "index": b.index, "first": b.first, "last": b.last, "start": b.start, "end": b.end,
            "successors": list(b.successors), "predecessors": list(b.predecessors),
            "reachable": b.reachable, "unknown_successors": b.unknown_successors,
            "loops": loops_of.get(b.index, []),
            "flagged": any(r.address in flagged for r in mine),
            "findings": sorted({n for r in mine for n in r.findings}),
        })  # fmt: skip
    edges = [
        {"src": e.src, "dst": e.dst, "kind": e.kind.value, "back_edge": (e.src, e.dst) in back}
        for e in insp.cfg.edges
    ]
    return {"entry": insp.cfg.entry, "blocks": blocks, "edges": edges}


def _loops(view: ExportView) -> list[dict[str, Any]]:
    return [
        {
            "index": lp.index,
            "header": lp.header,
            "blocks": sorted(lp.blocks),
            "back_edges": [list(e) for e in lp.back_edges],
            "depth": lp.depth,
            "parent": lp.parent,
            "first_address": lp.first_address,
            "last_address": lp.last_address,
            "addresses": list(lp.addresses),
            "source": _loc(lp.source, view.paths),
            "name": view.paths.text(view.inspection.loop_name(lp.index)),
        }  # fmt: skip
        for lp in view.inspection.loops
    ]


def _findings(view: ExportView) -> list[dict[str, Any]]:
    out = []
    for f, a in zip(view.findings, view.inspection.annotations, strict=True):
        out.append({
            "number": f.number, "kind": f.kind, "severity": f.severity, "message": f.message,
            "hint": f.hint, "addresses": list(a.addresses), "blocks": list(a.blocks),
            "loops": list(a.loops), "source": [_loc(s, view.paths) for s in a.source],
            "data": _plain(a.data, view.paths), "flagged": f.flags,
        })  # fmt: skip
    return out


def _ptx(view: ExportView) -> dict[str, Any] | None:
    fn = view.inspection.kernel.ptx
    if fn is None:
        return None
    text = dict(view.ptx_lines)
    corr = view.inspection.kernel.correspondence
    sass: dict[int, list[int]] = {}
    for r in view.rows:
        if r.ptx_line:
            sass.setdefault(r.ptx_line, []).append(r.address)
    return {
        "name": fn.name,
        "start_line": fn.start_line,
        "end_line": fn.end_line,
        "text_kept": bool(text),
        "instructions": [
            {
                "line": i.line,
                "text": text[i.line].strip() if i.line in text else None,
                "mnemonic": i.mnemonic,
                "source": _loc(corr.ptx_source.get(i.line), view.paths),
                "sass": sass.get(i.line, []),
            }
            for i in fn.instructions
        ],
    }


def _source(view: ExportView) -> dict[str, Any]:
    return {
        "file": view.main_file or None,
        "language": view.source_lang,
        "text_kept": bool(view.source_lines),
        "lines": [
            {
                "line": x.line,
                "text": x.text if view.source_lines else None,
                "ptx": list(x.ptx),
                "sass": list(x.sass),
            }  # fmt: skip
            for x in view.links
        ],
    }


def document(view: ExportView) -> dict[str, Any]:
    """The whole graph of one kernel as plain data (what `render` writes)."""
    from sassview import __version__

    insp = view.inspection
    a = insp.program.artifacts
    live = insp.liveness
    peak = insp.kernel.instructions[live.peak_index].address if live.peak_index >= 0 else None
    return {
        "format": FORMAT,
        "schema_version": GRAPH_SCHEMA_VERSION,
        "sassview": __version__,
        "program": {
            "label": a.label or None,
            "variant": _plain(dict(a.variant), view.paths),
            "kind": a.kind,
            "arch": insp.program.arch,
            "source": view.paths.name(a.source_path) or None,
            "producer": insp.program.producer,
            "elf_abi_version": insp.program.abi_version,
            "options": [view.paths.text(o) for o in a.options],
            "toolchain": dict(a.toolchain),
        },
        "kernel": _plain(kernel_summary(insp), view.paths),
        "instructions": _instructions(view),
        "cfg": _cfg(view),
        "loops": _loops(view),
        "liveness": {"peak": live.peak, "peak_address": peak, "files": sorted(live.counts)},
        "findings": _findings(view),
        "facts": {name: _facts(f.facts, view.paths) for name, f in sorted(insp.findings.items())},
        "ptx": _ptx(view),
        "source": _source(view),
    }


def render(view: ExportView) -> str:
    """The document as text: sorted keys, one-space indent, UTF-8 as is, one final newline."""
    return json.dumps(document(view), sort_keys=True, indent=1, ensure_ascii=False) + "\n"
