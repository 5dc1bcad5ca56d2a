"""Architecture names: parse `sm_90a`, check them against what NVRTC supports; the one table
of which targets exist and which of them have the arch-specific instructions, read by every
place that suggests an architecture (compile errors, findings, `try`, the pytest matchers).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sassview.errors import InputError, SassviewError
from sassview.memo import memoized

# The target a build gets when none is named: every front end, declare and steer read it here.
DEFAULT_ARCH = "sm_90a"

_ARCH = re.compile(r"^(?:sm_|compute_)?(\d{2,3})([af]?)$")

# Architectures whose features need the `a` (arch-specific) or `f` (family) suffix. sm_101 is
# CUDA 12.8-12.9's name for sm_110; NVRTC 13.5 has sm_107a and sm_107f (both compiled here).
SUFFIXED = {
    90: "a", 100: "af", 101: "af", 103: "af", 107: "af", 110: "af", 120: "af", 121: "af",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ArchFeature:
    """Instructions that only some suffixed targets have: `prefix` is how PTX (and ptxas's
    "Instruction 'wgmma.fence' not supported on .target 'sm_80'") spells them."""

    name: str
    prefix: str
    targets: tuple[str, ...]  # lowest first; the `a` target of a number before its `f`


# Measured with NVRTC 13.5: an inline-asm kernel using each compiled for every target it lists
# and failed for every other supported one (sm_101a: the PTX ISA's, for CUDA 12.8-12.9).
ARCH_FEATURES = (
    ArchFeature("wgmma", "wgmma.", ("sm_90a",)),
    ArchFeature(
        "tcgen05",
        "tcgen05.",
        ("sm_100a", "sm_100f", "sm_101a", "sm_103a", "sm_103f", "sm_107a", "sm_110a", "sm_110f"),
    ),
    ArchFeature(
        "setmaxnreg",
        "setmaxnreg.",
        (
            "sm_90a",
            "sm_100a",
            "sm_100f",
            "sm_101a",
            "sm_103a",
            "sm_103f",
            "sm_107a",
            "sm_110a",
            "sm_110f",
            "sm_120a",
            "sm_120f",
            "sm_121a",
            "sm_121f",
        ),
    ),  # fmt: skip
)
FEATURES_BY_NAME = {f.name: f for f in ARCH_FEATURES}


def feature_of(instruction: str) -> ArchFeature | None:
    """The arch-specific feature a PTX instruction (`wgmma.mma_async.sync`) belongs to."""
    return next((f for f in ARCH_FEATURES if (instruction + ".").startswith(f.prefix)), None)


@dataclass(frozen=True, slots=True, order=True)
class Arch:
    number: int  # 90 for sm_90a
    suffix: str = ""  # "", "a" or "f"

    def __str__(self) -> str:
        return f"sm_{self.number}{self.suffix}"

    @property
    def major(self) -> int:
        return self.number // 10


@memoized(64)
def supported_numbers() -> tuple[int, ...]:
    """What the installed NVRTC can target (nvrtcGetSupportedArchs; remembered for its file, so
    a run served from the cache does not load NVRTC to ask)."""
    from sassview.toolchain.locate import remember_nvrtc_archs, remembered_nvrtc_archs

    archs = remembered_nvrtc_archs()
    if archs is None:
        from sassview.frontends.nvrtc_api import supported_archs

        archs = supported_archs()
        remember_nvrtc_archs(archs)
    return archs


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


def _number(name: str) -> int:
    match = _ARCH.match(name)
    return int(match.group(1)) if match else 0


def _installed(names: Sequence[str]) -> list[str]:
    """`names` the installed NVRTC can target (all of them when it cannot be asked)."""
    try:
        known = set(supported_names())
    except SassviewError:  # no NVRTC to ask (reading a cubin): the table alone
        return list(names)
    return [n for n in names if n in known]


def suggest_target(
    current: str, features: Sequence[ArchFeature] = (), at_least: int = 0
) -> str | None:
    """The target to compile for instead of `current`: one that exists, has every feature and
    is at least sm_`at_least`; `current`'s own `a` target when it qualifies, else the lowest."""
    if features:
        names = [t for t in features[0].targets if all(t in f.targets for f in features[1:])]
    elif at_least:
        names = [f"sm_{at_least}"]
    else:
        return None
    names = [n for n in _installed(names) if _number(n) >= at_least]
    own = f"sm_{_number(current)}a"
    return own if own in names else (names[0] if names else None)


def with_feature(arch: str, name: str) -> str | None:
    """`arch`'s own target that has feature `name` (sm_90 -> sm_90a for wgmma), or None."""
    feature = FEATURES_BY_NAME[name]
    own = f"sm_{_number(arch)}a"
    return own if own != arch and own in feature.targets else None
