"""Turn compiler and assembler logs into hints a kernel author can act on."""

from __future__ import annotations

import re

# ptxas: "Instruction 'wgmma.fence' not supported on .target 'sm_90'" and
# "Feature 'wgmma' requires .target sm_90a".
_NEEDS_ARCH_SPECIFIC = re.compile(
    r"(?:not supported on \.target '(sm_\d+)'|requires \.target (sm_\d+[af]?))"
)
_PTX_VERSION = re.compile(r"Unsupported \.version (\d+\.\d+); current version is '(\d+\.\d+)'")
_NVRTC_ERROR = re.compile(r"^(.*?)\((\d+)\): (?:catastrophic )?error:?\s*(.*)$", re.M)


def arch_hint(log: str, arch: str) -> str:
    """Suggest the `a` target when an instruction needs it (wgmma on sm_90 -> sm_90a)."""
    if _NEEDS_ARCH_SPECIFIC.search(log) and not arch.endswith(("a", "f")):
        return (
            f"this code uses arch-specific instructions: compile for {arch}a (e.g. --arch {arch}a)"
        )
    version = _PTX_VERSION.search(log)
    if version:
        return (
            f"the PTX says .version {version.group(1)} but this assembler reads up to "
            f"{version.group(2)}: upgrade nvidia-nvjitlink, or emit older PTX"
        )
    return ""


def first_error(log: str) -> str:
    """`file:line: message` of the first error in an NVRTC log, or ""."""
    match = _NVRTC_ERROR.search(log)
    if not match:
        return ""
    return f"{match.group(1)}:{match.group(2)}: {match.group(3).strip()}"


def error_count(log: str) -> int:
    return len(_NVRTC_ERROR.findall(log))
