"""Architecture names: parse `sm_90a`, check them against what NVRTC supports."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sassview.errors import InputError

_ARCH = re.compile(r"^(?:sm_|compute_)?(\d{2,3})([af]?)$")

# Architectures whose features need the `a` (arch-specific) or `f` (family) suffix.
SUFFIXED = {90: "a", 100: "af", 101: "af", 103: "af", 110: "af", 120: "af", 121: "af"}


@dataclass(frozen=True, slots=True, order=True)
class Arch:
    number: int  # 90 for sm_90a
    suffix: str = ""  # "", "a" or "f"

    def __str__(self) -> str:
        return f"sm_{self.number}{self.suffix}"

    @property
    def major(self) -> int:
        return self.number // 10


@functools.cache
def supported_numbers() -> tuple[int, ...]:
    """What the installed NVRTC can target (nvrtcGetSupportedArchs)."""
    from sassview.frontends.nvrtc_api import supported_archs

    return supported_archs()


def supported_names() -> list[str]:
    names = []
    for n in supported_numbers():
        names.append(f"sm_{n}")
        names.extend(f"sm_{n}{s}" for s in SUFFIXED.get(n, ""))
    return names


def parse_arch(text: str, *, check_supported: bool = True) -> Arch:
    """`sm_90a`, `90a`, `compute_90` -> Arch; unknown or unsupported ones name the choices."""
    match = _ARCH.match(text.strip().lower())
    if not match:
        raise InputError(
            f"{text!r} is not an architecture name",
            "use a name like sm_80, sm_90a or sm_100a; supported: " + ", ".join(supported_names()),
        )
    arch = Arch(int(match.group(1)), match.group(2))
    if check_supported:
        if arch.number not in supported_numbers():
            raise InputError(
                f"{arch} is not supported by the installed NVRTC",
                "supported: " + ", ".join(supported_names()),
            )
        if arch.suffix and arch.suffix not in SUFFIXED.get(arch.number, ""):
            raise InputError(
                f"{arch} does not exist: sm_{arch.number} has no '{arch.suffix}' variant",
                "supported: " + ", ".join(supported_names()),
            )
    return arch


def parse_arch_list(text: str | Sequence[str]) -> list[Arch]:
    items = text.split(",") if isinstance(text, str) else [p for t in text for p in t.split(",")]
    archs = [parse_arch(p) for p in items if p.strip()]
    if not archs:
        raise InputError("no architecture given", "use e.g. --arch sm_90a or --arch sm_80,sm_90a")
    return list(dict.fromkeys(archs))
