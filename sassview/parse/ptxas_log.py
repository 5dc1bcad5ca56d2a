"""Read the `ptxas -v` report NVRTC and nvJitLink hand back: the only source of spill bytes."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FUNC = re.compile(r"(?:Compiling entry function|Function properties for)\s+'?([^'\s]+)'?")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")


@dataclass(frozen=True, slots=True)
class PtxasReport:
    """One function's lines of the report."""

    name: str
    stack_frame: int | None = None
    spill_stores: int | None = None
    spill_loads: int | None = None
    registers: int | None = None
    shared: int | None = None
    constant: tuple[tuple[int, int], ...] = ()


def parse_ptxas_log(log: str) -> dict[str, PtxasReport]:
    """Function name -> its report. Lines that are not ptxas' own are ignored."""
    found: dict[str, dict[str, object]] = {}
    current: dict[str, object] | None = None
    for line in log.splitlines():
        # NVRTC and nvJitLink prefix every line with "ptxas"; standalone ptxas (Triton's) prints
        # the stack-frame line bare.
        if "ptxas" not in line and "bytes stack frame" not in line:
            continue
        func = _FUNC.search(line)
        if func:
            current = found.setdefault(func.group(1), {"name": func.group(1)})
            continue
        if current is None:
            continue
        stack = _STACK.search(line)
        if stack:
            current["stack_frame"], current["spill_stores"], current["spill_loads"] = map(
                int, stack.groups()
            )
        used = _USED.search(line)
        if used:
            current["registers"] = int(used.group(1))
            smem = _SMEM.search(line)
            current["shared"] = int(smem.group(1)) if smem else 0
            current["constant"] = tuple((int(b), int(n)) for n, b in _CMEM.findall(line))
    return {name: PtxasReport(**fields) for name, fields in found.items()}  # type: ignore[arg-type]
