"""What ptxas itself said about the kernel's speed: its numbered advisories, which no listing shows.

Detects, from the `ptxas -v` report every frontend keeps (NVRTC, nvJitLink, Triton, CuTe DSL):
  - "wgmma-serialized" (WARNING, sm_90a): `(C7510..C7515) Potential Performance Loss:
    wgmma.mma_async instructions are serialized due to <reason>`. ptxas then waits for each
    wgmma before the next is issued (a WARPGROUP.DEPBAR after every HGMMA), so the tensor cores
    idle between them. The reason picks the hint: too few registers for the groups in flight,
    a non-wgmma instruction writing an accumulator inside the pipeline, a call inside it;
  - "wgmma-wait-injected" (NOTE): `(C7517) wgmma.wait_group is injected ... to allow use of
    registers defined by GMMA`: accumulators were read before the code waited for them, and
    ptxas put the wait where the read is;
  - "ptxas-advisory" (NOTE): any other numbered message, in ptxas' words.
Each finding points at the SASS compiled from the PTX line ptxas names, and its source line.

How it can be wrong:
  - Only what the report says: a compile whose report was not kept (a bare cubin, a `.ptx` file
    assembled elsewhere) has no advisories, and an empty list then proves nothing.
  - ptxas names a PTX line "around" the spot; for inline asm it is the line of the whole asm
    block. A message about a non-inlined device function names that function: it is given to
    every kernel whose PTX calls it (directly or through other functions; an indirect call
    through a register is not followed), and says which function it is about.
"""

from __future__ import annotations

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.records_compute import PtxasFacts
from sassview.build import demangle
from sassview.ir import SourceLoc
from sassview.parse.ptxas_log import PtxasAdvisory, parse_ptxas_advisories

SERIALIZED = "wgmma.mma_async instructions are serialized"
INJECTED_WAIT = "wgmma.wait_group is injected"

# Words of ptxas' reason -> the knob that removes it.
_SERIALIZED_HINTS = (
    (
        "insufficient register resources",
        "the wgmma groups in flight need more registers than the kernel may use: a smaller N "
        "tile, fewer groups in flight, fewer other live values, or a larger register budget "
        "(`__launch_bounds__`, `setmaxnreg` for the consumer warpgroups)",
    ),
    (
        "non wgmma instructions defining accumulator registers",
        "an instruction other than wgmma writes an accumulator inside the pipeline (zeroing, a "
        "select, a branch around the first k-step): clear with the first wgmma's scale-d = 0 "
        "and peel the first iteration instead of branching inside the loop",
    ),
    (
        "call",
        "a call inside the wgmma pipeline: inline the callee (`__forceinline__`) or move the "
        "call out of the fence ... wait_group region",
    ),
)
_SERIALIZED_DEFAULT = "the wgmma groups run one at a time: remove the cause ptxas names"
_INJECTED_HINT = (
    "read the accumulators only after `wgmma.wait_group` (cute: `warpgroup.wait_group`); the "
    "injected wait stalls on every wgmma still in flight"
)


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    log = ctx.program.artifacts.compile_log
    single = len(ctx.program.kernels) == 1
    advisories = parse_ptxas_advisories(log)
    callees = (
        _callees(ctx) if any(a.function not in (None, kernel.name) for a in advisories) else ()
    )
    mine = [
        a
        for a in advisories
        if a.function == kernel.name or (a.function is None and single) or a.function in callees
    ]
    waits = [a for a in mine if INJECTED_WAIT in a.text]
    annotations = tuple(_annotation(ctx, a) for a in mine if a not in waits)
    by_function: dict[str | None, list[PtxasAdvisory]] = {}
    for wait in waits:  # one note per function the waits are in
        by_function.setdefault(wait.function, []).append(wait)
    annotations += tuple(_injected_waits(ctx, group) for group in by_function.values())
    facts = PtxasFacts(
        wgmma_serialized=any(SERIALIZED in a.text for a in mine),
        injected_waits=sum(INJECTED_WAIT in a.text for a in mine),
        advisories=[{"code": a.code, "text": a.text, "ptx_line": a.ptx_line} for a in mine],
    )
    return Findings(facts=facts, annotations=annotations)


def _callees(ctx: AnalysisContext) -> set[str]:
    """The device functions the kernel's PTX calls, directly or through one another."""
    ptx = ctx.program.ptx
    if ptx is None or ctx.kernel.ptx is None:
        return set()
    functions = {f.name: f for f in ptx.functions}
    found: set[str] = set()
    todo = [ctx.kernel.ptx]
    while todo:
        for p in todo.pop().instructions:
            if p.opcode != "call":
                continue
            for operand in p.operands:  # call.uni (retval0), _Z6helperf, (param0)
                if operand in functions and operand not in found:
                    found.add(operand)
                    todo.append(functions[operand])
    return found


def _in(ctx: AnalysisContext, advisory: PtxasAdvisory) -> str:
    """The words `, in <device function>` for a message about a function the kernel calls."""
    name = advisory.function
    if name is None or name == ctx.kernel.name:
        return ""
    return f", in {demangle(name)}"


def _places(
    ctx: AnalysisContext, lines: list[int]
) -> tuple[tuple[int, ...], tuple[SourceLoc, ...]]:
    """The SASS addresses compiled from these PTX lines, and their source lines."""
    corr = ctx.kernel.correspondence
    wanted = set(lines)
    addresses = tuple(sorted(a for a, p in corr.sass_ptx.items() if p in wanted))
    locs = (corr.ptx_source.get(n) or _callee_source(ctx, n) for n in lines)
    return addresses, tuple(dict.fromkeys(loc for loc in locs if loc is not None))


def _callee_source(ctx: AnalysisContext, line: int) -> SourceLoc | None:
    """The source of a PTX line outside the kernel's own body (a device function it calls)."""
    for function in ctx.program.ptx.functions if ctx.program.ptx else ():
        if function.start_line <= line <= function.end_line:
            return next((p.source for p in function.instructions if p.line == line), None)
    return None


def _injected_waits(ctx: AnalysisContext, waits: list[PtxasAdvisory]) -> Annotation:
    """One note for all the waits ptxas injected: they share their cause and their fix."""
    lines = sorted({a.ptx_line for a in waits if a.ptx_line is not None})
    addresses, source = _places(ctx, lines)
    inside = _in(ctx, waits[0])
    where = f" (PTX lines {', '.join(map(str, lines))}{inside})" if lines else ""
    where = where or (f" ({inside[2:]})" if inside else "")
    count = f"{len(waits)} wgmma.wait_group" if len(waits) > 1 else "a wgmma.wait_group"
    return Annotation(
        "wgmma-wait-injected", Severity.NOTE,
        f"ptxas injected {count}{where} so accumulators can be read ({waits[0].code})",
        _INJECTED_HINT, addresses=addresses, source=source,
        data={"code": waits[0].code, "ptx_lines": lines},
    )  # fmt: skip


def _annotation(ctx: AnalysisContext, advisory: PtxasAdvisory) -> Annotation:
    line = advisory.ptx_line
    addresses, source = _places(ctx, [line] if line is not None else [])
    inside = _in(ctx, advisory)
    where = (
        f" (PTX line {line}{inside})"
        if line is not None
        else (f" ({inside[2:]})" if inside else "")
    )
    data = {"code": advisory.code, "ptx_line": line}
    if inside:
        data["function"] = advisory.function
    if SERIALIZED in advisory.text:
        reason = advisory.text.split(" due to ", 1)[-1] if " due to " in advisory.text else ""
        hint = next((h for words, h in _SERIALIZED_HINTS if words in reason), _SERIALIZED_DEFAULT)
        message = f"ptxas serializes the wgmma pipeline{where}: {reason or advisory.text}"
        return Annotation(
            "wgmma-serialized", Severity.WARNING, f"{message} ({advisory.code})", hint,
            addresses=addresses, source=source, data=data,
        )  # fmt: skip
    return Annotation(
        "ptxas-advisory", Severity.NOTE, f"ptxas{where}: {advisory.text} ({advisory.code})",
        addresses=addresses, source=source, data=data,
    )  # fmt: skip
