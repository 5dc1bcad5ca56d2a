"""`sassview export PATH -o DIR --format md,html,json,dot,mermaid`: annotated listings as files.

PATH is anything sassview reads (.cu, .ptx, .cubin, kernel.py). One file per (kernel,
architecture, variant, format) goes into DIR, named `<label>-<arch>-<kernel>.<ext>`; the paths
written are printed, one a line. Exit codes: 0 written; 2 bad input, a compile error or a
directory that cannot be written (and then nothing was written).
"""

from __future__ import annotations

from pathlib import Path

import click

from sassview.api import BuildOptions
from sassview.errors import SassviewError
from sassview.views.cli_build import arch_list, build_options, file_build
from sassview.views.variant_limit import MAX_VARIANTS_HELP, variant_guard


@click.command("export")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out_dir", required=True, type=click.Path(path_type=Path),
              help="Directory to write into (made if missing).")  # fmt: skip
@click.option("--format", "-f", "formats", multiple=True, default=("md",), show_default=True,
              help="md, html, json, dot, mermaid; comma-separated or repeated.")  # fmt: skip
@click.option("--arch", "-a", "archs", multiple=True,
              help="Target(s), e.g. sm_90a or sm_80,sm_90a (default: as declared).")  # fmt: skip
@click.option("--kernel", "-k", help="Only this kernel (mangled or demangled name).")
@click.option("--root", type=click.Path(path_type=Path), metavar="DIR",
              help="Show paths relative to DIR (default: the compiled file's).")  # fmt: skip
@click.option("--max-variants", type=click.IntRange(min=1), help=MAX_VARIANTS_HELP)
@build_options()
def export_command(
    path: Path,
    out_dir: Path,
    formats: tuple[str, ...],
    archs: tuple[str, ...],
    kernel: str | None,
    root: Path | None,
    max_variants: int | None,
    build: BuildOptions,
) -> None:
    """Write each kernel of PATH as an annotated listing: Markdown, HTML, JSON, DOT, Mermaid."""
    from sassview.api import inspect
    from sassview.export import export, parse_formats
    from sassview.steer.standing import decide_file
    from sassview.views.user_output import user_output_to_stderr

    try:
        fmts = parse_formats(formats)
        found = file_build(path, build)
        with user_output_to_stderr():  # a kernel.py's prints must not reach the list of files
            inspections = inspect(
                path,
                arch=arch_list(archs, found),
                kernel=kernel,
                allow=variant_guard(max_variants, path.name),
                build=found.options,
            )
            # each hint's standing as `check` says it without --try (steer/standing.py)
            inspections = decide_file(path, inspections, found.options, run_trials=False)
        if not inspections:
            raise SassviewError(f"{path}: no kernels to export", "check the file declares kernels")
        written = export(inspections, out_dir, fmts, root=root)
    except SassviewError as exc:
        from sassview.views.fail import fail as _fail

        _fail(exc)
        return
    for p in written:
        click.echo(str(p))
