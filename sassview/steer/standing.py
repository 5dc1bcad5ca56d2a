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

How it can be wrong: a finding is matched after the trial by its cause (its rule and what it
is about: trials.same_cause) at its source line, else at a line no finding stood at before (the
knob moved it there: "not a fix", moved to line N). What a finding is about is read from its
data where the analysis names it (a runtime stride's argument, a conflict's load or store);
two spills are one cause, so a knob that ends one spill and makes another elsewhere reads as
moved, and one conflict on another shared array as the same conflict moved.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sassview.analyses import Annotation, HintStanding
from sassview.api import BuildOptions, Declaration, Job, KernelFile
from sassview.inspection import Inspection
from sassview.steer.hints import Trial, propose
from sassview.steer.trials import Outcome, moved_to, run_trial


def decide(
    kernel_file: KernelFile, job: Job, inspections: Sequence[Inspection], *, run_trials: bool
) -> list[Inspection]:
    """The inspections of one job's program with each finding's hint standing decided:
    untried, or (with `run_trials`) tried, once per knob."""
    return [_decided(kernel_file, job, insp, run_trials) for insp in inspections]


def _decided(kernel_file: KernelFile, job: Job, insp: Inspection, run_trials: bool) -> Inspection:
    knobs = _knobs(kernel_file.declarations[job.declaration], job.arch, job.variant, insp)
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


def _knobs(
    decl: Declaration, arch: str, variant: Mapping[str, Any], insp: Inspection
) -> dict[int, Trial]:
    """id(finding) -> the knob its hint names, for the findings whose hint names one."""
    knobs: dict[int, Trial] = {}
    for a in insp.annotations:
        proposed = propose(decl, arch, variant, (a,))
        if proposed:
            knobs[id(a)] = proposed[0]
    return knobs


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
    line = moved_to(finding, after)
    if line is not None:  # gone from its line, the same cause at another: not a fix
        return HintStanding("stays", trial.knob, f"the finding moved to line {line}")
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


# Why a knob a Triton cache's kernel names stays untried: `try` recompiles a declaration.
CACHE_UNTRIED = (
    "a Triton cache keeps no kernel.py to compile it from: declare the kernel with sv.triton "
    "to try it"
)


def decide_triton_cache(inspections: Sequence[Inspection]) -> list[Inspection]:
    """The standings of a Triton cache's kernels: the knob each hint names (as its kernel.py
    would name it, frontends/triton_cache.cache_declaration) said untried, with why: nothing
    here can compile the variant, with or without --try."""
    from sassview.api import cache_declaration

    out = []
    for insp in inspections:
        decl = cache_declaration(insp.program.artifacts)
        knobs = (
            {} if decl is None else _knobs(decl, insp.arch, insp.program.artifacts.variant, insp)
        )
        standing = {k: HintStanding("untried", t.knob, CACHE_UNTRIED) for k, t in knobs.items()}
        out.append(with_standings(insp, standing) if standing else insp)
    return out


def decide_file(
    path: Path, inspections: Sequence[Inspection], build: BuildOptions, *, run_trials: bool
) -> list[Inspection]:
    """The standings of what was loaded from `path`, for a view that has only the file (the
    MCP worker, export): `file_decider`'s, once."""
    archs = list(dict.fromkeys(i.program.arch for i in inspections))
    return file_decider(path, build, archs, run_trials=run_trials)(inspections)


def file_decider(
    path: Path, build: BuildOptions, archs: Sequence[str], *, run_trials: bool
) -> Callable[[Sequence[Inspection]], list[Inspection]]:
    """What decides the standings of inspections loaded from `path` (for `archs`), made once
    per file (a kernel.py is imported once here, not once per kernel; the pytest plugin asks
    per kernel): a kernel.py's programs matched to its jobs by their label and architecture,
    a .cu file's as `decide_cuda_file`, a Triton cache's as `decide_triton_cache`; a .ptx or
    cubin has no knob."""
    if path.is_dir():
        return decide_triton_cache
    if path.suffix != ".py":
        return lambda found: decide_cuda_file(path, found, build, run_trials=run_trials)
    from sassview.api import import_kernel_file, kernel_file_jobs

    kernel_file = import_kernel_file(path)
    jobs = {
        (j.label(kernel_file.declarations[j.declaration], kernel_file), j.arch): j
        for j in kernel_file_jobs(kernel_file, arch=list(archs) or None)
    }

    def decided(found: Sequence[Inspection]) -> list[Inspection]:
        out: list[Inspection] = []
        for insp in found:
            job = jobs.get((insp.program.artifacts.label, insp.program.arch))
            out += (
                [insp] if job is None else decide(kernel_file, job, [insp], run_trials=run_trials)
            )
        return out

    return decided
