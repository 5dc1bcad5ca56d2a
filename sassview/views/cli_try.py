"""`sassview try`: apply each finding's knob, recompile, and say whether the finding went away."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sassview.api import BuildOptions
from sassview.errors import SassviewError
from sassview.views.cli_build import arch_list, build_options, file_build
from sassview.views.variant_limit import MAX_VARIANTS_HELP, allow_variants

if TYPE_CHECKING:
    from sassview.inspection import Inspection
    from sassview.steer.trials import Outcome


@click.command(name="try")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--arch", "-a", "archs", multiple=True, help="Architectures, e.g. sm_80,sm_90a.")
@click.option("--kernel", "-k", help="Only this kernel.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcomes as one JSON document.")
@click.option("--max-variants", type=click.IntRange(min=1), help=MAX_VARIANTS_HELP)
@build_options()
def try_command(
    path: Path,
    archs: tuple[str, ...],
    kernel: str | None,
    as_json: bool,
    max_variants: int | None,
    build: BuildOptions,
) -> None:
    """For each finding whose hint is a knob sassview can turn (a compiler option, a Triton
    option or divisibility, an architecture), compile that variant and report what it did."""
    from sassview.views.fail import fail as _fail
    from sassview.views.user_output import user_output_to_stderr

    try:
        with user_output_to_stderr():  # a kernel.py's prints must not reach the JSON
            outcomes, notes = _run(path, archs, kernel, max_variants, build)
    except SassviewError as exc:
        _fail(exc)
        return
    if as_json:
        from sassview.steer.trials import moved_to

        doc = {
            "schema_version": 2,  # 2: `findings`, and `resolved` covers all of them
            "trials": [
                {"kernel": o.kernel, "arch": o.arch, "variant": o.label,
                 "finding": o.trial.finding.message, "kind": o.trial.finding.kind,
                 "knob": o.trial.knob, "resolved": o.resolved,
                 "remaining": [a.message for a in o.remaining], "delta": o.delta, "error": o.error,
                 "findings": [{"kind": a.kind, "message": a.message, "resolved": after is None,
                               "now": None if after is None else after.message,
                               "moved_to": moved_to(a, after)}
                              for a, after in o.targets]}
                for o in outcomes
            ],
        }  # fmt: skip
        click.echo(json.dumps(doc, indent=2))
        return
    for line in notes:
        click.echo(line)
    if not outcomes:
        click.echo("no finding here has a knob sassview can try (the others need a source change)")
        return
    for o in outcomes:
        click.echo(f"{o.label} · {o.arch} · {o.kernel.split('(')[0]}")
        for line in outcome_lines(o):
            click.echo(line)


def outcome_lines(o: Outcome) -> list[str]:
    """The trial's knob and verdict, then every finding the knob answers with its own verdict
    (one -maxrregcount removal answers each spill it caused), then what else changed."""
    from sassview.steer.trials import moved_to

    verdict = {True: "GONE", False: "STAYS", None: "FAILED"}[o.resolved]
    gone = sum(after is None for _, after in o.targets)
    if len(o.targets) > 1:
        verdict += f" ({gone} of {len(o.targets)} findings gone)"
    lines = [f"  tried    {o.trial.knob}  ->  {verdict}"]
    if o.targets:
        for finding, after in o.targets:
            state = "gone" if after is None else "stays"
            state = "moved" if moved_to(finding, after) is not None else state
            lines.append(f"  {state:<8} {finding.kind}: {finding.message}")
            if after is not None and after.message != finding.message:  # it changed
                lines.append(f"  {'now':<8} {after.kind}: {after.message}")
    else:  # it did not compile: the finding it was tried for
        lines.append(f"  finding  {o.trial.finding.kind}: {o.trial.finding.message}")
    if o.error:
        lines.append(f"  error    {o.error}")
    if o.delta:
        lines.append("  changed  " + ", ".join(f"{k} {v:+d}" for k, v in o.delta.items()))
    return lines


def _run(
    path: Path,
    archs: tuple[str, ...],
    kernel: str | None,
    max_variants: int | None,
    build: BuildOptions,
) -> tuple[list[Outcome], list[str]]:
    from sassview.api import compile_all, parse_arch_list, plan
    from sassview.build import build_program
    from sassview.inspection import inspect_program
    from sassview.steer.sweep import open_kernel_file
    from sassview.steer.trials import try_hints
    from sassview.views.render import table_notes

    project = file_build(path, build)
    archs = tuple(arch_list(archs, project) or ())
    arch_names = [str(a) for a in parse_arch_list(list(archs))] if archs else None
    kernel_file = open_kernel_file(path, arch_names, "try", project.options)
    jobs = plan(kernel_file, arch_names)
    allow_variants(len(jobs), max_variants, f"{path.name}")
    found: list[list[Inspection]] = []
    for artifacts in compile_all(kernel_file, jobs=jobs):
        program = build_program(artifacts, where=artifacts.label)
        if kernel and not any(k.matches(kernel) for k in program.kernels):
            found.append([])
            continue
        found.append(inspect_program(program, kernel))
    notes = table_notes(i for inspections in found for i in inspections)
    return list(try_hints(kernel_file, jobs, found)), notes
