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
    block. A message about a non-inlined device function names that function, not the kernel
    calling it, and is not attached to the kernel.
"""

from __future__ import annotations

from typing import Any

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
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
    mine = [
        a
        for a in parse_ptxas_advisories(log)
        if a.function == kernel.name or (a.function is None and single)
    ]
    waits = [a for a in mine if INJECTED_WAIT in a.text]
    annotations = tuple(_annotation(ctx, a) for a in mine if a not in waits)
    if waits:
        annotations += (_injected_waits(ctx, waits),)
    facts: dict[str, Any] = {
        "wgmma_serialized": any(SERIALIZED in a.text for a in mine),
        "injected_waits": sum(INJECTED_WAIT in a.text for a in mine),
        "advisories": [{"code": a.code, "text": a.text, "ptx_line": a.ptx_line} for a in mine],
    }
    return Findings(facts=facts, annotations=annotations)


def _places(
    ctx: AnalysisContext, lines: list[int]
) -> tuple[tuple[int, ...], tuple[SourceLoc, ...]]:
    """The SASS addresses compiled from these PTX lines, and their source lines."""
    corr = ctx.kernel.correspondence
    wanted = set(lines)
    addresses = tuple(sorted(a for a, p in corr.sass_ptx.items() if p in wanted))
    locs = (corr.ptx_source.get(n) for n in lines)
    return addresses, tuple(dict.fromkeys(loc for loc in locs if loc is not None))


def _injected_waits(ctx: AnalysisContext, waits: list[PtxasAdvisory]) -> Annotation:
    """One note for all the waits ptxas injected: they share their cause and their fix."""
    lines = sorted({a.ptx_line for a in waits if a.ptx_line is not None})
    addresses, source = _places(ctx, lines)
    where = f" (PTX lines {', '.join(map(str, lines))})" if lines else ""
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
    where = f" (PTX line {line})" if line is not None else ""
    data = {"code": advisory.code, "ptx_line": line}
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
