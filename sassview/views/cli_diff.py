"""`sassview diff A B`: what changed between two compiles of a kernel, and what it did."""

from __future__ import annotations

import dataclasses
import json

import click

from sassview.errors import SassviewError
from sassview.frontends.build_options import BuildOptions
from sassview.views.cli_build import build_options, file_build


@click.command()
@click.argument("a")
@click.argument("b")
@click.option(
    "--arch", "-a", help="Target for a side that names none with @ARCH, e.g. --arch sm_90a."
)
@click.option("--kernel", "-k", help="The kernel to compare (needed when both sides have several).")
@click.option("--ptx", "show_ptx", is_flag=True, help="Also diff the normalised PTX.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@build_options()
def diff(
    a: str,
    b: str,
    arch: str | None,
    kernel: str | None,
    show_ptx: bool,
    as_json: bool,
    build: BuildOptions,
) -> None:
    """Compare two compiles. A and B are PATH[@ARCH][?KEY=VALUE&...], e.g.
    `kernel.py@sm_80 kernel.py@sm_90a`, `gemm.cu?-maxrregcount=32 gemm.cu`, `old.cubin new.cubin`.
    Registers renamed, labels renumbered and addresses dropped: only real changes show. Two
    files with one kernel each are compared even when the kernel was renamed.
    Exit 0 when the SASS is the same, 1 when it differs."""
    import sys

    from sassview.steer.diff import compare, describe, inspect_spec, pair, parse_spec, renamed
    from sassview.views.fail import fail as _fail

    try:
        sa, sb = (parse_spec(x) for x in (a, b))
        if arch:
            sa, sb = (s if s.arch else dataclasses.replace(s, arch=arch) for s in (sa, sb))
        builds = [file_build(s.path, build) for s in (sa, sb)]
        sa, sb = (
            s if s.arch or not f.archs else dataclasses.replace(s, arch=f.archs[0])
            for s, f in zip((sa, sb), builds, strict=True)
        )
        left, right = pair(
            inspect_spec(sa, kernel, builds[0].options),
            inspect_spec(sb, kernel, builds[1].options),
            kernel,
        )
        change = compare(left, right, names=(str(sa), str(sb)))
    except SassviewError as exc:
        _fail(exc)
        return
    note = renamed(left, right)
    if note:
        click.echo(f"note: {note}", err=True)
    if as_json:
        click.echo(json.dumps({
            "schema_version": 1, "a": str(sa), "b": str(sb), "kernel": left.kernel.name,
            "kernel_b": right.kernel.name,
            "same_sass": not change.sass_diff,
            "summary": [{"what": w, "a": x, "b": y} for w, x, y in change.summary],
            "opcodes": [{"opcode": o, "a": x, "b": y} for o, x, y in change.opcodes],
            "sass_diff": change.sass_diff, "ptx_diff": change.ptx_diff,
        }, indent=2))  # fmt: skip
    else:
        names = left.kernel.display_name
        if note:
            names += f" -> {right.kernel.display_name}"
        click.echo(f"{names}: {sa}  ->  {sb}")
        for line in describe(change, ptx=show_ptx):
            click.echo(line if line[:1] in "-+@" else "  " + line)
    sys.exit(1 if change.sass_diff else 0)
