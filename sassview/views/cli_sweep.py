"""`sassview sweep`: compile a grid of variants on every core, print one comparison table."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from sassview.api import BuildOptions
from sassview.errors import SassviewError
from sassview.views.cli_build import arch_list, build_options, file_build
from sassview.views.variant_limit import MAX_VARIANTS_HELP, allow_variants

COLUMNS = (
    ("registers", "regs"),
    ("spill_bytes", "spill B"),
    ("shared_bytes", "smem B"),
    ("instructions", "instrs"),
    ("global_load_bits", "ld bits"),
    ("global_store_bits", "st bits"),
    ("tensor", "tensor"),
    ("cp_async", "cp.async"),
    ("tma_loads", "TMA"),
    ("loops", "loops (line:factor)"),
    ("occupancy", "occ %"),
    ("loop_cycles", "cycles"),
)


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "-p",
    "--param",
    "params",
    multiple=True,
    help="KEY=V1,V2: a knob and its values (repeat for a grid).",
)
@click.option("--arch", "-a", "archs", multiple=True, help="Architectures, e.g. sm_80,sm_90a.")
@click.option("--kernel", "-k", help="Only this kernel.")
@click.option("--baseline", "-b", help="KEY=V[,KEY=V]: the variant deltas are measured against.")
@click.option(
    "--sort",
    "sort_by",
    type=click.Choice([c for c, _ in COLUMNS[:4]]),
    help="Sort rows by a column.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as one JSON document.")
@click.option(
    "--max-variants",
    type=click.IntRange(min=1),
    help=MAX_VARIANTS_HELP,
)
@click.option(
    "--cluster",
    metavar="ADDRESS",
    help="Compile the variants on a Dask cluster (tcp://HOST:8786; default: $SASSVIEW_CLUSTER, "
    "else this machine's cores).",
)
@build_options(build_dir_flags=("--build-dir",))  # -p is --param here
def sweep(
    path: Path,
    params: tuple[str, ...],
    archs: tuple[str, ...],
    kernel: str | None,
    baseline: str | None,
    sort_by: str | None,
    as_json: bool,
    max_variants: int | None,
    cluster: str | None,
    build: BuildOptions,
) -> None:
    """Compile every variant of PATH (kernel.py or .cu) and compare them in one table."""
    from sassview.views.fail import fail as _fail
    from sassview.views.user_output import user_output_to_stderr

    try:
        with user_output_to_stderr():  # a kernel.py's prints must not reach the JSON
            rows, notes = _run(path, params, archs, kernel, baseline, max_variants, build, cluster)
    except SassviewError as exc:
        _fail(exc)
        return
    if sort_by:
        rows.sort(key=lambda r: (r.values[sort_by] is None, r.values[sort_by]))
    if as_json:
        doc = {
            "schema_version": 1,
            "rows": [
                {"label": r.label, "arch": r.arch, "kernel": r.kernel, "variant": dict(r.variant),
                 "values": dict(r.values), "delta": dict(r.delta)}
                for r in rows
            ],
        }  # fmt: skip
        click.echo(json.dumps(doc, indent=2))
        return
    _print_table(rows)
    for line in notes:
        click.echo(line)


def _run(
    path: Path,
    params: tuple[str, ...],
    archs: tuple[str, ...],
    kernel: str | None,
    baseline: str | None,
    max_variants: int | None,
    build: BuildOptions,
    cluster: str | None = None,
) -> tuple[list[Any], list[str]]:
    from sassview.api import compile_all, parse_arch_list, plan
    from sassview.build import build_program
    from sassview.inspection import inspect_program
    from sassview.steer.cluster import (
        cluster_address,
        recipe_for,
        unshared_cache_note,
        warm_on_cluster,
    )
    from sassview.steer.sweep import build_rows, open_kernel_file, parse_params, with_grid
    from sassview.views.render import table_notes

    grid = parse_params(params)
    found = file_build(path, build)
    archs = tuple(arch_list(archs, found) or ())
    arch_names = [str(a) for a in parse_arch_list(list(archs))] if archs else None
    kernel_file = with_grid(open_kernel_file(path, arch_names, "sweep", found.options), grid)
    jobs = plan(kernel_file, arch_names)
    allow_variants(len(jobs), max_variants, "the sweep")
    base = dict(p.split("=", 1) for p in baseline.split(",")) if baseline else None
    inspections = []
    address = cluster_address(cluster)
    with _Progress(len(jobs)) as progress:
        if address:  # the workers compile into the cache; then read below, as locally
            recipe = recipe_for(path, arch_names, found.options, grid)
            note = unshared_cache_note(warm_on_cluster(address, recipe, jobs, progress.compiled))
            if note:
                click.echo(note, err=True)
        artifacts = compile_all(
            kernel_file,
            jobs=jobs,
            parallel=not address,
            progress=None if address else progress.compiled,
        )
        for a in artifacts:
            program = build_program(a, where=a.label)
            progress.read()
            if kernel and not any(k.matches(kernel) for k in program.kernels):
                continue
            inspections += inspect_program(program, kernel)
    return build_rows(inspections, base), table_notes(inspections)


class _Progress:
    """Two bars on stderr, compiling and reading, when stderr is a terminal; else nothing."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bars: Any = None

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self.bars = Progress(console=Console(stderr=True), transient=True)
            self.bars.__enter__()
            what = f"compiling {self.total} variants"
            self.compiling = self.bars.add_task(what, total=self.total)
            self.reading = self.bars.add_task("reading the results", total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bars is not None:
            self.bars.__exit__(*exc)

    def compiled(self, _job: object) -> None:
        if self.bars is not None:
            self.bars.advance(self.compiling)

    def read(self) -> None:
        if self.bars is not None:
            self.bars.advance(self.reading)


def _cell(row: Any, key: str) -> str:
    value = row.values[key]
    text = "-" if value is None else str(value)
    delta = row.delta.get(key)
    if delta:
        text += f" ({delta:+d})"
    return text


_LEFT = ("tensor", "loops (line:factor)", "cycles")
# Shown only when some row has a value: most sweeps of a kernel without launch bounds or loops
# would print two empty columns and fold the variant labels.
_OPTIONAL = ("occupancy", "loop_cycles")


def _print_table(rows: list[Any]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    columns = [
        (key, title)
        for key, title in COLUMNS
        if key not in _OPTIONAL or any(r.values[key] not in (None, "") for r in rows)
    ]
    table = Table(show_lines=False, header_style="bold")
    table.add_column("variant", overflow="fold")
    table.add_column("arch")
    table.add_column("kernel", overflow="fold")
    for _, title in columns:
        table.add_column(title, justify="left" if title in _LEFT else "right")
    for r in rows:
        # Text, never a markup string: a label like `add [num_warps=4]` is a Rich style tag.
        cells = (r.label, r.arch, r.kernel.split("(")[0], *(_cell(r, k) for k, _ in columns))
        table.add_row(*map(Text, cells))
    Console(width=max(160, Console().width)).print(table)
    click.echo(
        "(deltas against the first variant of each kernel and arch; --baseline picks another)"
    )
