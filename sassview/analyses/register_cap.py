"""A register cap that does not apply: `-maxrregcount` asked of a kernel with launch bounds.

Detects, on every architecture:
  - "maxrregcount-ignored" (NOTE): the compile was given `-maxrregcount=N` (or `--maxrregcount
    N`) but the kernel declares `__launch_bounds__` (`.maxntid`, `.reqntid` or `.minnctapersm`
    in the PTX, MAX_THREADS / REQNTID / MIN_CTAS in the cubin's .nv.info). ptxas then takes the
    kernel's register limit from its launch bounds, not from the option: `sassview sweep -p
    -maxrregcount=32,64` on such a kernel gives identical rows. The cubin's MAXREG_COUNT says
    which limit ptxas used (255 for `__launch_bounds__(256)` under `-maxrregcount=32`).

How it can be wrong:
  - Only options sassview passed are seen: a cubin compiled elsewhere carries no options, so
    nothing is said about it.
  - The suggested minimum blocks per SM is 64K registers / (threads x cap), the register file
    of every architecture since sm_50; ptxas rounds to its allocation granularity, so the limit
    it derives can sit a few registers below the cap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.records import RegisterCapFacts
from sassview.ir import Kernel

_CAP = re.compile(r"^--?maxrregcount(?:=(\d+))?$")
REGISTERS_PER_SM = 65536


def asked_cap(options: Sequence[str]) -> int | None:
    """The last `-maxrregcount=N` / `--maxrregcount N` among compiler options."""
    cap = None
    for i, opt in enumerate(options):
        found = _CAP.match(opt)
        if found:
            value = found.group(1) or (options[i + 1] if i + 1 < len(options) else "")
            cap = int(value) if value.isdigit() else cap
    return cap


def _bounds(kernel: Kernel) -> tuple[int | None, int | None]:
    """(threads per block, min blocks per SM) the kernel declares, from .nv.info or the PTX."""
    r, ptx = kernel.resources, kernel.ptx
    dims = r.reqntid or r.maxntid or (ptx and (ptx.reqntid or ptx.maxntid)) or None
    threads = 1 if dims else None
    for d in dims or ():
        threads = (threads or 1) * d
    blocks = r.min_blocks_per_sm or (ptx.minnctapersm if ptx else None)
    return threads, blocks


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    asked = asked_cap(ctx.program.artifacts.options)
    threads, blocks = _bounds(kernel)
    declared = None
    if threads is not None or blocks is not None:
        declared = f"__launch_bounds__({threads or '?'}" + (f", {blocks})" if blocks else ")")
    limit = kernel.resources.max_registers
    ignored = asked is not None and declared is not None and limit != asked
    facts = RegisterCapFacts(asked=asked, launch_bounds=declared, limit=limit, ignored=ignored)
    if not ignored:
        return Findings(facts=facts)
    hint = "drop __launch_bounds__ for -maxrregcount to apply"
    if threads and asked and not blocks:
        need = max(1, REGISTERS_PER_SM // (threads * asked))
        hint = (
            f"to cap registers near {asked}, ask for the blocks per SM that must fit: "
            f"__launch_bounds__({threads}, {need}); or {hint}"
        )
    where = f"its limit is {limit}" if limit is not None else "they set its limit"
    annotation = Annotation(
        kind="maxrregcount-ignored",
        severity=Severity.NOTE,
        message=f"-maxrregcount={asked} does not apply: the kernel's {declared} wins ({where})",
        hint=hint,
        data={"asked": asked, "launch_bounds": declared, "limit": limit},
    )
    return Findings(facts=facts, annotations=(annotation,))
