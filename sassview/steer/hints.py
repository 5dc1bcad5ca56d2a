"""Hints sassview can check: for a finding, the knob it names, in a form that can be applied.

Only knobs that change no source code are proposed here — a compiler option, a Triton option or
divisibility attribute, an architecture, a macro a shared array's row length is made of
(steer/padding.py). A finding whose fix is a source edit (`__restrict__`,
float4, a pragma) gets no trial; its hint stays advice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sassview.analyses import Annotation
from sassview.declare import Declaration
from sassview.frontends.arch import with_feature


@dataclass(frozen=True)
class Trial:
    """One knob to try: new settings for the declaration, a new arch and/or variant values."""

    finding: Annotation
    knob: str  # what a person would type: "-maxrregcount removed", "divisibility=[x, y]"
    settings: Mapping[str, Any] = field(default_factory=dict)  # merged over the declaration's
    variant: Mapping[str, Any] = field(default_factory=dict)  # merged over the job's variant
    arch: str | None = None  # another architecture


def _cuda_option_cap(decl: Declaration, variant: Mapping[str, Any]) -> str | None:
    """The -maxrregcount in force for a CUDA declaration, as written there."""
    if "-maxrregcount" in variant and variant["-maxrregcount"] not in (None, False):
        return "variant"
    for opt in decl.settings.get("options", ()):
        if opt.startswith(("-maxrregcount", "--maxrregcount")):
            return str(opt)
    return None


def _triton_params(decl: Declaration) -> list[str]:
    """Pointer and integer parameters: what tt.divisibility=16 can be claimed for."""
    sig = decl.settings.get("signature", {})
    return [name for name, kind in sig.items() if kind.startswith("*") or kind in ("i32", "i64")]


def propose(
    decl: Declaration, arch: str, variant: Mapping[str, Any], annotations: tuple[Annotation, ...]
) -> list[Trial]:
    trials: list[Trial] = []
    seen: set[str] = set()

    def add(trial: Trial) -> None:
        key = trial.knob
        if key not in seen:  # one trial per knob: it answers every finding it is meant for
            seen.add(key)
            trials.append(trial)

    for a in annotations:
        if a.kind == "spill":
            if decl.kind == "cuda":
                cap = _cuda_option_cap(decl, variant)
                if cap == "variant":
                    add(Trial(a, "without -maxrregcount", variant={"-maxrregcount": None}))
                elif cap is not None:
                    kept = tuple(o for o in decl.settings["options"] if o != cap)
                    add(Trial(a, f"without {cap}", settings={"options": kept}))
            elif decl.kind == "triton":
                stages = int(variant.get("num_stages", decl.settings.get("num_stages", 3)))
                if stages > 1:
                    add(Trial(a, f"num_stages={stages - 1}", variant={"num_stages": stages - 1}))
        elif a.kind in ("narrow-access", "merge-candidate") and decl.kind == "triton":
            params = _triton_params(decl)
            have = set(decl.settings.get("divisibility", ()))
            if params and not set(params) <= have:
                add(Trial(a, f"divisibility={params}", settings={"divisibility": tuple(params)}))
        elif a.kind == "bank-conflict" and decl.kind == "cuda":
            from sassview.steer.padding import padding_knob

            pad = padding_knob(a, variant, tuple(decl.settings.get("defines", ())))
            if pad is not None:
                macro, array, value = pad
                add(Trial(a, f"{macro}={value} (pads {array}'s rows)", variant={macro: value}))
        elif a.kind == "tensor-core" and a.severity.name == "WARNING":
            target = with_feature(arch, "wgmma") or with_feature(arch, "tcgen05")
            if target:
                add(Trial(a, f"arch {target}", arch=target))
    return trials
