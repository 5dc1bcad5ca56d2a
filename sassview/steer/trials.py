"""Run the trials `hints.propose` makes, and say for each whether its finding went away and
what else changed — before the user edits anything."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sassview.analyses import Annotation
from sassview.api import Declaration, Job, KernelFile, compile_job
from sassview.build import build_program
from sassview.errors import SassviewError
from sassview.inspection import Inspection, inspect_program
from sassview.steer.hints import Trial, propose
from sassview.steer.sweep import NUMERIC, row_values


@dataclass(frozen=True)
class Outcome:
    kernel: str
    arch: str
    label: str
    trial: Trial
    resolved: bool | None  # every targeted finding went away; None: it did not compile (error)
    remaining: tuple[Annotation, ...]  # findings that still answer to a targeted one
    before: dict[str, Any]
    after: dict[str, Any]
    error: str = ""
    # Every finding of the kernel this trial's knob answers (the four spills one -maxrregcount
    # caused, not only the first), each with what answers to it after the trial: the same
    # cause at its line, or at a line it moved to (moved_to says which); None when it went
    # away. Empty when the trial did not compile.
    targets: tuple[tuple[Annotation, Annotation | None], ...] = ()

    @property
    def delta(self) -> dict[str, int]:
        if not self.after:
            return {}
        return {
            k: self.after[k] - self.before[k] for k in NUMERIC if self.after[k] != self.before[k]
        }


# What a finding of each kind is about, past its line: the keys of its `data` that name its
# cause (the argument a runtime stride is passed for, a conflict's load or store). A kind not
# listed is about its kind alone: one spill is the same cause as another spill.
_ABOUT: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "runtime-stride": ("argument",),
    "bank-conflict": ("direction",),
    "uncoalesced": ("direction",),
    "merge-candidate": ("space", "direction"),
})  # fmt: skip


def same_cause(a: Annotation, b: Annotation) -> bool:
    """Whether two findings name one cause (the rule, and what it is about), at any line."""
    keys = _ABOUT.get(a.kind, ())
    return a.kind == b.kind and all(a.data.get(k) == b.data.get(k) for k in keys)


def _lines(a: Annotation) -> set[tuple[str, int]]:
    return {(s.file, s.line) for s in a.source}


def _same_finding(a: Annotation, b: Annotation) -> bool:
    """The same cause at the same line (or one of them names no line)."""
    lines_a, lines_b = _lines(a), _lines(b)
    return same_cause(a, b) and (not lines_a or not lines_b or bool(lines_a & lines_b))


def moved_to(before: Annotation, after: Annotation | None) -> int | None:
    """The line a finding answering `before` after a trial stands at, when it moved there (it
    shares none of `before`'s lines); None: it stays where it was, or went away."""
    if after is None or _same_finding(before, after) or not after.source:
        return None
    return after.source[0].line


def _answer(
    target: Annotation, after: tuple[Annotation, ...], moved: tuple[Annotation, ...]
) -> Annotation | None:
    """What answers a targeted finding after the trial: the same cause at its line, else the
    same cause at a line none of the findings before stood at (the knob moved it there)."""
    here = next((a for a in after if _same_finding(a, target)), None)
    return here or next((a for a in moved if same_cause(a, target)), None)


def _moved(before: tuple[Annotation, ...], after: tuple[Annotation, ...]) -> tuple[Annotation, ...]:
    """The findings after the trial that answer no finding before it at their line: new, or
    moved there."""
    return tuple(a for a in after if not any(_same_finding(a, b) for b in before))


def _applied(kernel_file: KernelFile, job: Job, trial: Trial) -> tuple[KernelFile, Job]:
    decl = kernel_file.declarations[job.declaration]
    if trial.settings:
        decl = dataclasses.replace(
            decl, settings=MappingProxyType({**decl.settings, **trial.settings})
        )
    variant = {k: v for k, v in {**job.variant, **trial.variant}.items() if v is not None}
    # A variant value of None removes the knob (e.g. -maxrregcount) rather than setting it.
    removed = [k for k, v in trial.variant.items() if v is None]
    if removed:
        decl = dataclasses.replace(
            decl,
            variants=MappingProxyType({k: v for k, v in decl.variants.items() if k not in removed}),
        )
    decls = list(kernel_file.declarations)
    decls[job.declaration] = decl
    return (
        dataclasses.replace(kernel_file, declarations=tuple(decls)),
        Job(job.declaration, trial.arch or job.arch, variant),
    )


def try_hints(
    kernel_file: KernelFile, jobs: Sequence[Job], inspections: Sequence[Sequence[Inspection]]
) -> list[Outcome]:
    """For each job (and the inspections of its program), propose and run every trial."""
    outcomes = []
    for job, found in zip(jobs, inspections, strict=True):
        decl = kernel_file.declarations[job.declaration]
        for insp in found:
            for trial in propose(decl, job.arch, job.variant, insp.annotations):
                targets = _targets(decl, job, insp.annotations, trial)
                outcomes.append(run_trial(kernel_file, job, insp, trial, targets))
    return outcomes


def _targets(
    decl: Declaration, job: Job, annotations: tuple[Annotation, ...], trial: Trial
) -> tuple[Annotation, ...]:
    """The findings `propose` would answer with this trial's knob: it proposes one trial per
    knob (for the first finding that names it), and the others are what the knob is meant to
    change as well."""
    found = tuple(
        a
        for a in annotations
        if any(t.knob == trial.knob for t in propose(decl, job.arch, job.variant, (a,)))
    )
    return found if trial.finding in found else (trial.finding, *found)


def run_trial(
    kernel_file: KernelFile,
    job: Job,
    insp: Inspection,
    trial: Trial,
    targets: tuple[Annotation, ...],
) -> Outcome:
    """Compile the job with the trial's knob (cached like any compile) and look again for
    each of `targets`, findings of `insp`."""
    label = insp.program.artifacts.label or insp.kernel.display_name
    before = row_values(insp)
    kf, new_job = _applied(kernel_file, job, trial)
    try:
        program = build_program(compile_job(kf, new_job), where=label)
        (after_insp,) = inspect_program(program, insp.kernel.name)
    except SassviewError as exc:
        return Outcome(
            insp.kernel.display_name, insp.arch, label, trial, None, (), before, {}, exc.message
        )
    after = after_insp.annotations
    moved = _moved(insp.annotations, after)
    verdicts = tuple((t, _answer(t, after, moved)) for t in targets)
    answers = {id(a) for _, a in verdicts if a is not None}
    remaining = tuple(
        a for a in after if id(a) in answers or any(_same_finding(a, t) for t in targets)
    )
    return Outcome(
        insp.kernel.display_name, insp.arch, label, trial, not remaining, remaining, before,
        row_values(after_insp), targets=verdicts,
    )  # fmt: skip
