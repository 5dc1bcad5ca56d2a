"""Hints sassview can check: for a finding, the knob it names, in a form that can be applied.

Only knobs that change no source code are proposed here — a compiler option, a Triton option or
divisibility attribute (each frontend's `spill_knob` and `width_knob` in the registry), an
architecture, a macro a shared array's row length is made of (steer/padding.py). A finding
whose fix is a source edit (`__restrict__`, float4, a pragma) gets no trial; its hint stays
advice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sassview.analyses import Annotation
from sassview.api import Declaration, with_feature
from sassview.api import frontend_registry as registry


@dataclass(frozen=True)
class Trial:
    """One knob to try: new settings for the declaration, a new arch and/or variant values."""

    finding: Annotation
    knob: str  # what a person would type: "-maxrregcount removed", "divisibility=[x, y]"
    settings: Mapping[str, Any] = field(default_factory=dict)  # merged over the declaration's
    variant: Mapping[str, Any] = field(default_factory=dict)  # merged over the job's variant
    arch: str | None = None  # another architecture


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

    frontend = registry.spec(decl.kind)
    for a in annotations:
        knob = None
        if a.kind == "spill" and frontend is not None:
            knob = frontend.spill_knob(decl, variant)
        elif a.kind in ("narrow-access", "merge-candidate") and frontend is not None:
            knob = frontend.width_knob(decl, variant)
        elif a.kind == "bank-conflict" and frontend is not None and frontend.cxx:
            from sassview.steer.padding import padding_knob

            pad = padding_knob(a, variant, tuple(decl.settings.get("defines", ())))
            if pad is not None:
                macro, array, value = pad
                knob = registry.Knob(
                    f"{macro}={value} (pads {array}'s rows)", variant={macro: value}
                )
        elif a.kind == "tensor-core" and a.severity.name == "WARNING":
            target = with_feature(arch, "wgmma") or with_feature(arch, "tcgen05")
            if target:
                add(Trial(a, f"arch {target}", arch=target))
        elif frontend is not None:  # a finding of the frontend's own (Triton's runtime-stride)
            knob = frontend.finding_knob(a.kind, a.data, decl)
        if knob is not None:
            add(Trial(a, knob.knob, settings=knob.settings, variant=knob.variant))
    return trials
