"""Read the `ptxas -v` report NVRTC, nvJitLink, Triton and the CuTe DSL hand back: the only
source of spill bytes, and of ptxas' own performance advisories (`(C7511) Potential Performance
Loss: wgmma.mma_async instructions are serialized ...`), which no listing shows."""

from __future__ import annotations

import re
from dataclasses import dataclass

_FUNC = re.compile(r"(?:Compiling entry function|Function properties for)\s+'?([^'\s]+)'?")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")
# `ptxas info    : (C7517) wgmma.wait_group is injected in around line 91 by compiler to allow
# use of registers defined by GMMA in function '_Z1kv'`; the function and line are optional.
_ADVISORY = re.compile(r"^\s*ptxas\b[^:]*:\s*\((C\d+)\)\s*(.+)$")
_IN_FUNCTION = re.compile(r"\s*(?:in|for) (?:the )?function '([^']+)'")
_AT_LINE = re.compile(r"\s*in (?:around )?line (\d+)")


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


@dataclass(frozen=True, slots=True)
class PtxasAdvisory:
    """One numbered ptxas message: `code` C7511, its text without the function and line."""

    code: str
    text: str
    function: str | None = None  # the mangled name ptxas gives, if any
    ptx_line: int | None = None  # the PTX line it names ("in line 117", "around line 91")


def parse_ptxas_advisories(log: str) -> tuple[PtxasAdvisory, ...]:
    """Every `(Cnnnn)` message of the report, in order, each once."""
    found: dict[PtxasAdvisory, None] = {}
    for line in log.splitlines():
        match = _ADVISORY.search(line)
        if match is None:
            continue
        code, text = match.groups()
        function = _IN_FUNCTION.search(text)
        at = _AT_LINE.search(text)
        for part in (function, at):
            if part is not None:
                text = text.replace(part.group(0), "", 1)
        advisory = PtxasAdvisory(
            code,
            text.strip(),
            function.group(1) if function else None,
            int(at.group(1)) if at else None,
        )
        found[advisory] = None
    return tuple(found)


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
