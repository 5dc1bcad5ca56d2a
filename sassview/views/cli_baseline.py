"""`sassview baseline PATHS...`: the compiler-upgrade gate on the command line (testing/gate.py).

Each kernel of each PATH is compiled (with --toolchain, any release) and compared with its
baseline: exit 0 when every change is benign, 1 when one is significant or unclear or has no
baseline, 2 for bad input. `--update` writes what differs and lists every file it wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from sassview.api import BuildOptions
from sassview.errors import InputError, SassviewError
from sassview.views.cli_build import arch_list, build_options, file_build
from sassview.views.fail import fail as _fail

if TYPE_CHECKING:
    from sassview.testing.gate import Outcome


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--arch", "-a", "archs", multiple=True, help="Target(s), e.g. sm_90a.")
@click.option("--kernel", "-k", "kernels", multiple=True, help="Only these kernels (repeat).")
@click.option(
    "--dir",
    "directory",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path(".sassview/baseline"),
    show_default=True,
    help="Where the baselines live (commit it).",
)
@click.option("--update", is_flag=True, help="Write the baselines that differ, and list them.")
@build_options()
def baseline(
    paths: tuple[Path, ...],
    archs: tuple[str, ...],
    kernels: tuple[str, ...],
    directory: Path,
    update: bool,
    build: BuildOptions,
) -> None:
    """Compare each kernel of PATHS with its recorded listing and facts; fail on a change that
    matters (significant or unclear), pass on a benign one."""
    import sys

    from sassview.api import analyze, load
    from sassview.testing.gate import check_kernel

    failed = 0
    try:
        for path in paths:
            found = file_build(path, build)
            programs = load(path, arch=arch_list(archs, found), build=found.options)
            inspections = [
                i
                for p in programs
                for i in analyze(p)
                if i.kernel.is_entry and (not kernels or any(i.kernel.matches(k) for k in kernels))
            ]
            if kernels and not inspections:
                raise InputError(
                    f"{path}: no kernel named {', '.join(kernels)}", "check the --kernel names"
                )
            for insp in inspections:
                outcome = check_kernel(directory, insp, update=update)
                failed += not outcome.passed
                _report(outcome)
    except SassviewError as exc:
        _fail(exc)
    sys.exit(1 if failed else 0)


def _report(outcome: Outcome) -> None:
    from sassview.report.classify import explain as explain_lines

    where = f"{outcome.kernel} · {outcome.arch} · CUDA {outcome.toolchain}"
    if outcome.against and outcome.against != outcome.toolchain:
        where += f" (against the baseline of {outcome.against})"
    status = outcome.status
    if status == "written":
        was = outcome.classified.kind if outcome.classified else "new"
        click.echo(f"wrote     {where}: {outcome.path} ({was})")
        return
    if status == "missing":
        click.echo(f"MISSING   {where}: no baseline at {outcome.path}")
        click.echo("          record it: sassview baseline --update ...")
        return
    label = status if outcome.passed else status.upper()
    click.echo(f"{label:<9} {where}")
    if outcome.classified is not None:
        for line in explain_lines(outcome.classified):
            click.echo(f"          {line}")
