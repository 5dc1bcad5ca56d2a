"""A hint's standing: was the knob it names tried, and what did that do? The one place that
decides it; every view reads the answer (each finding's `standing`, and its hint as worded by
`HintStanding.hint_text`), so `check`'s text, its JSON, the TUI and the exports say one thing.

The rule (docs/architecture: "no hint printed as a fix that was not tried"): a finding whose
hint names a knob `sassview try` can turn (steer/hints.py's `propose`: a compiler option, a
Triton option or divisibility, a cuTile hint, a padding macro, an architecture) is either
tried — its variant compiled, cached like any compile, and the finding looked for again
(steer/trials.py, what `sassview try` runs) — or said untried. A knob tried that failed to
compile, or after which the finding is still there, is not offered as a fix: the hint is
replaced by what the trial found. A hint whose fix is a source edit has no knob and no
standing: it is advice, and reads as such.

When check tries: only with `check --try`. A trial is one more compile per knob (cold: a
Triton kernel's ~1-2 s, an NVRTC one's ~0.2-0.5 s, benchmarks/bench_hint_trials.py), and a warm
trial still costs the analyses of the variant, so trying by default would make every warm
check slower; without the flag the standing is "untried" (deciding that costs no compile).

How it can be wrong: a finding is matched after the trial by kind and source line
(trials._same_finding); a trial that moves the finding to another line reads as "helped".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from sassview.analyses import Annotation, HintStanding
from sassview.api import BuildOptions, Job, KernelFile
from sassview.inspection import Inspection
from sassview.steer.hints import Trial, propose
from sassview.steer.trials import Outcome, run_trial


def decide(
    kernel_file: KernelFile, job: Job, inspections: Sequence[Inspection], *, run_trials: bool
) -> list[Inspection]:
    """The inspections of one job's program with each finding's hint standing decided:
    untried, or (with `run_trials`) tried, once per knob."""
    return [_decided(kernel_file, job, insp, run_trials) for insp in inspections]


def _decided(kernel_file: KernelFile, job: Job, insp: Inspection, run_trials: bool) -> Inspection:
    decl = kernel_file.declarations[job.declaration]
    knobs: dict[int, Trial] = {}  # id(finding) -> the knob its hint names
    for a in insp.annotations:
        proposed = propose(decl, job.arch, job.variant, (a,))
        if proposed:
            knobs[id(a)] = proposed[0]
    if not knobs:
        return insp
    outcomes: dict[str, Outcome] = {}
    for trial in {t.knob: t for t in knobs.values()}.values() if run_trials else ():
        # one compile per knob, answering every finding that names it
        targets = tuple(
            a for a in insp.annotations if id(a) in knobs and knobs[id(a)].knob == trial.knob
        )
        outcomes[trial.knob] = run_trial(kernel_file, job, insp, trial, targets)
    standing = {
        id(a): _standing(knobs[id(a)], outcomes.get(knobs[id(a)].knob), a)
        for a in insp.annotations
        if id(a) in knobs
    }
    return with_standings(insp, standing)


def _standing(trial: Trial, outcome: Outcome | None, finding: Annotation) -> HintStanding:
    if outcome is None:
        return HintStanding("untried", trial.knob)
    if outcome.resolved is None:
        error = outcome.error.splitlines()[0] if outcome.error else "no error text"
        return HintStanding("failed", trial.knob, error)
    after = next((now for f, now in outcome.targets if f is finding), finding)
    changed = ", ".join(f"{k} {v:+d}" for k, v in outcome.delta.items())
    if after is None:
        return HintStanding(
            "helped", trial.knob, "the finding goes" + f"; {changed}" * bool(changed)
        )
    if after.message != finding.message:
        return HintStanding("stays", trial.knob, f"the finding stays, now: {after.message}")
    return HintStanding("stays", trial.knob, f"the finding stays; {changed or 'nothing changed'}")


def with_standings(insp: Inspection, standing: Mapping[int, HintStanding]) -> Inspection:
    """The inspection with the findings `standing` names (by id) given their standing and the
    hint it words."""

    def given(found: Iterable[Annotation]) -> tuple[Annotation, ...]:
        return tuple(
            dataclasses.replace(a, standing=s, hint=s.hint_text(a.hint))
            if (s := standing.get(id(a))) is not None
            else a
            for a in found
        )

    findings = {
        name: dataclasses.replace(f, annotations=given(f.annotations))
        for name, f in insp.findings.items()
    }
    return dataclasses.replace(insp, findings=MappingProxyType(findings))


def decide_cuda_file(
    path: Path, inspections: Sequence[Inspection], build: BuildOptions, *, run_trials: bool
) -> list[Inspection]:
    """`decide` for the inspections of a .cu file compiled as `build` says: its knobs tried on
    the file as a kernel.py declaring it would compile it (steer/sweep.py), per architecture.
    A .ptx or cubin has no knob: its inspections come back as they are."""
    if path.suffix not in (".cu", ".cuh"):
        return list(inspections)
    from sassview.steer.sweep import cuda_file_as_kernel_file

    archs = list(dict.fromkeys(i.program.arch for i in inspections))
    kernel_file = cuda_file_as_kernel_file(path, archs, build)
    out = []
    for insp in inspections:
        (done,) = decide(kernel_file, Job(0, insp.program.arch, {}), [insp], run_trials=run_trials)
        out.append(done)
    return out
