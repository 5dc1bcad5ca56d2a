"""Register spills and local arrays: the two reasons a kernel touches local memory (LDL/STL).

Detects, on every architecture (sm_80 ... sm_120):
  - "spill" (WARNING), per source line: stores and reloads of registers ptxas ran out of. nvdisasm
    13.5 with -annotate marks each one `SpillRefill`; the byte totals come from the ptxas report
    (`N bytes spill stores, M bytes spill loads`, None when the compile left no report);
  - "local-array" (NOTE), per source line: LDL/STL without the mark — an array the compiler put
    in local memory because it is indexed with values known only at run time.
Each access is counted with its width (STL.128 is 128 bits), so per-line bytes add up to what
the instructions move per thread, statically.

How it can be wrong:
  - Without SpillRefill marks (a listing from an nvdisasm older than 13.5, or read from text that
    lacks them) but with a report that says the kernel spills, spills are guessed: LDL/STL at a
    constant offset from the stack pointer R1 count as spills, all else as arrays. A local array
    indexed with constants looks the same ([R1+0x10]) and is then miscounted as a spill.
  - With neither marks nor a report, nothing is called a spill.
  - Callee-saved registers around a non-inlined CALL, and stack objects of the ABI, are local
    memory too; unless nvdisasm marks them they are reported as local arrays.
  - Static counts: a spill inside a hot loop and one at kernel entry weigh the same here.
"""

from __future__ import annotations

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import (
    LineKeys,
    access_bits,
    distinct_locs,
    line_keys,
    never_executes,
)
from sassview.analyses.records_memory import LocalArrayLine, SpillFacts, SpillLine
from sassview.ir import Kernel, OperandKind, SassInstruction

SPILL_MARK = "SpillRefill"
DEFAULT_REGISTER_LIMIT = 255  # what MAXREG_COUNT says when nothing capped it
STACK_POINTER = 1  # R1 holds the local-memory stack pointer on every architecture
SPILL_HINT = "`__launch_bounds__(threads, minBlocks)`, fewer live values, or raise -maxrregcount"
LOCAL_HINT = (
    "dynamically indexed array in local memory: index it with compile-time constants "
    "(fully unrolled loop) to keep it in registers"
)


def spill_hint(kind: str) -> str:
    """In the kernel's language (its frontend's vocabulary), else the CUDA C++ words."""
    from sassview.frontends.registry import words

    return words(kind).spill or SPILL_HINT


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    res = kernel.resources
    local = [i for i in kernel.instructions if i.opcode in ("LDL", "STL") and not never_executes(i)]
    reported = bool(res.spill_store_bytes or res.spill_load_bytes)
    marked = any(SPILL_MARK in i.marks for i in kernel.instructions)
    if marked or not reported:
        method = "nvdisasm" if marked or res.spill_store_bytes is None else "ptxas-report"
        spill = [i for i in local if SPILL_MARK in i.marks]
    else:
        method = "heuristic"
        spill = [i for i in local if _stack_relative(i)]
    spill_set = {i.address for i in spill}
    arrays = [i for i in local if i.address not in spill_set]
    keys = ctx.shared(line_keys)
    by_line = _spill_lines(spill, keys)
    array_lines = _array_lines(arrays, keys)
    limit = _limit_text(ctx)
    facts = SpillFacts(
        spills=bool(spill) or reported,
        spill_store_bytes=res.spill_store_bytes,
        spill_load_bytes=res.spill_load_bytes,
        spill_instructions=len(spill),
        spill_stores=sum(i.opcode == "STL" for i in spill),
        spill_loads=sum(i.opcode == "LDL" for i in spill),
        local_array_instructions=len(arrays),
        local_bytes=res.local,
        stack_frame_bytes=res.stack_frame,
        registers=res.registers,
        register_limit=res.max_registers,
        classified_by=method,
        by_line={k: v for k, (v, _) in by_line.items()},
        local_array_by_line={k: v for k, (v, _) in array_lines.items()},
    )
    notes: list[Annotation] = []
    hint = spill_hint(ctx.program.artifacts.kind) + (f" ({limit} caused it)" if limit else "")
    for key, (entry, members) in by_line.items():
        moved = entry["store_bytes"] + entry["load_bytes"]
        notes.append(
            Annotation(
                kind="spill",
                severity=Severity.WARNING,
                message=f"line {key}: {_n(entry['stores'], 'spill store')}, "
                f"{_n(entry['loads'], 'spill load')} ({moved} bytes per thread)",
                hint=hint,
                addresses=tuple(i.address for i in members),
                source=distinct_locs(members),
                data={"line": key, **entry},
            )
        )
    if reported and not spill:
        notes.append(
            Annotation(
                kind="spill",
                severity=Severity.WARNING,
                message=f"ptxas reports {res.spill_store_bytes} bytes of spill stores and "
                f"{res.spill_load_bytes} bytes of spill loads",
                hint=hint,
                data={"store_bytes": res.spill_store_bytes, "load_bytes": res.spill_load_bytes},
            )
        )
    for key, (array, members) in array_lines.items():
        notes.append(
            Annotation(
                kind="local-array",
                severity=Severity.NOTE,
                message=f"line {key}: {_n(array['loads'], 'load')} and "
                f"{_n(array['stores'], 'store')} of an array in local memory",
                hint=LOCAL_HINT,
                addresses=tuple(i.address for i in members),
                source=distinct_locs(members),
                data={"line": key, **array},
            )
        )
    return Findings(facts=facts, annotations=tuple(notes))


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def _stack_relative(ins: SassInstruction) -> bool:
    """[R1+0x10] / [R1]: a constant slot of the stack frame (what a spill looks like)."""
    mem = next((op for op in ins.operands if op.kind is OperandKind.MEMORY), None)
    if mem is None:
        return False
    regs = [r for r in mem.registers if r.file == "R"]
    return len(regs) == 1 and regs[0].index == STACK_POINTER


def _bits(ins: SassInstruction) -> int:
    bits = access_bits(ins)
    return bits if isinstance(bits, int) else 32


def _spill_lines(
    spill: list[SassInstruction], keys: LineKeys
) -> dict[str, tuple[SpillLine, list[SassInstruction]]]:
    out: dict[str, tuple[SpillLine, list[SassInstruction]]] = {}
    for ins in spill:
        key = keys.of(ins) or "?"
        if key not in out:
            out[key] = (
                {"stores": 0, "loads": 0, "store_bytes": 0, "load_bytes": 0, "by_width": {}},
                [],
            )
        entry, members = out[key]
        members.append(ins)
        bits = _bits(ins)
        if ins.opcode == "STL":
            entry["stores"] += 1
            entry["store_bytes"] += bits // 8
        else:
            entry["loads"] += 1
            entry["load_bytes"] += bits // 8
        entry["by_width"][str(bits)] = entry["by_width"].get(str(bits), 0) + 1
    return out


def _array_lines(
    arrays: list[SassInstruction], keys: LineKeys
) -> dict[str, tuple[LocalArrayLine, list[SassInstruction]]]:
    out: dict[str, tuple[LocalArrayLine, list[SassInstruction]]] = {}
    for ins in arrays:
        key = keys.of(ins) or "?"
        entry, members = out.setdefault(key, ({"loads": 0, "stores": 0, "bytes": 0}, []))
        members.append(ins)
        if ins.opcode == "STL":
            entry["stores"] += 1
        else:
            entry["loads"] += 1
        entry["bytes"] += _bits(ins) // 8
    return out


def _limit_text(ctx: AnalysisContext) -> str:
    """What capped the registers: the -maxrregcount option, or launch bounds."""
    options: tuple[str, ...] = ctx.program.artifacts.options
    for opt in options:
        if "maxrregcount" in opt:
            return opt.lstrip("-").replace("maxrregcount", "-maxrregcount", 1)
    kernel: Kernel = ctx.kernel
    res = kernel.resources
    if res.max_registers is None or res.max_registers >= DEFAULT_REGISTER_LIMIT:
        return ""
    if res.min_blocks_per_sm or res.max_threads:
        return f"__launch_bounds__ (at most {res.max_registers} registers)"
    return f"a register limit of {res.max_registers}"
