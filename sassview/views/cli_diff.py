"""`sassview diff A B`: what changed between two compiles of a kernel, and what it did."""

from __future__ import annotations

import dataclasses
import json

import click

from sassview.api import BuildOptions
from sassview.errors import SassviewError
from sassview.views.cli_build import build_options, file_build


@click.command()
@click.argument("a")
@click.argument("b", required=False)
@click.option(
    "--arch", "-a", help="Target for a side that names none with @ARCH, e.g. --arch sm_90a."
)
@click.option("--kernel", "-k", help="The kernel to compare (needed when both sides have several).")
@click.option("--ptx", "show_ptx", is_flag=True, help="Also diff the normalised PTX.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@build_options(many_toolchains=True)
def diff(
    a: str,
    b: str | None,
    arch: str | None,
    kernel: str | None,
    show_ptx: bool,
    as_json: bool,
    build: BuildOptions,
    toolchains: tuple[str, ...],
) -> None:
    """Compare two compiles. A and B are PATH[@ARCH][?KEY=VALUE&...], e.g.
    `kernel.py@sm_80 kernel.py@sm_90a`, `gemm.cu?-maxrregcount=32 gemm.cu`, `old.cubin new.cubin`.
    Registers renamed, labels renumbered and addresses dropped: only real changes show. Two
    files with one kernel each are compared even when the kernel was renamed.
    `diff FILE --toolchain 12.9 --toolchain default` compares one file under two CUDA releases
    (`sassview toolchain add`); one --toolchain compiles both sides with it.
    Exit 0 when the SASS is the same, 1 when it differs."""
    import sys

    from sassview.steer.diff import compare, describe, inspect_spec, pair, parse_spec, renamed
    from sassview.views.fail import fail as _fail

    try:
        b, sides = _sides(a, b, build, toolchains)
        sa, sb = (parse_spec(x) for x in (a, b))
        if arch:
            sa, sb = (s if s.arch else dataclasses.replace(s, arch=arch) for s in (sa, sb))
        builds = [file_build(s.path, o) for s, o in zip((sa, sb), sides, strict=True)]
        sa, sb = (
            s if s.arch or not f.archs else dataclasses.replace(s, arch=f.archs[0])
            for s, f in zip((sa, sb), builds, strict=True)
        )
        left, right = pair(
            inspect_spec(sa, kernel, builds[0].options),
            inspect_spec(sb, kernel, builds[1].options),
            kernel,
        )
        labels = (_named(str(sa), sides[0]), _named(str(sb), sides[1]))
        change = compare(left, right, names=labels)
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
            "toolchain_a": sides[0].toolchain, "toolchain_b": sides[1].toolchain,
            "same_sass": not change.sass_diff,
            "summary": [{"what": w, "a": x, "b": y} for w, x, y in change.summary],
            "opcodes": [{"opcode": o, "a": x, "b": y} for o, x, y in change.opcodes],
            "sass_diff": change.sass_diff, "ptx_diff": change.ptx_diff,
            "verdict": change.classified.kind,
            "verdicts": [{"class": v.kind, "what": v.what, "a": v.before, "b": v.after,
                          "rule": v.rule, "evidence": list(v.evidence)}
                         for v in change.classified.verdicts],
        }, indent=2))  # fmt: skip
    else:
        names = left.kernel.display_name
        if note:
            names += f" -> {right.kernel.display_name}"
        click.echo(f"{names}: {labels[0]}  ->  {labels[1]}")
        for line in describe(change, ptx=show_ptx):
            click.echo(line if line[:1] in "-+@" else "  " + line)
    sys.exit(1 if change.sass_diff else 0)


def _sides(
    a: str, b: str | None, build: BuildOptions, toolchains: tuple[str, ...]
) -> tuple[str, tuple[BuildOptions, BuildOptions]]:
    """B (A again when two toolchains compare one file) and each side's build."""
    from sassview.errors import InputError

    if len(toolchains) > 2:
        raise InputError("--toolchain given more than twice", "one for each side, at most")
    if b is None and len(toolchains) != 2:
        raise InputError(
            "diff needs two sides: A B, or one file and two toolchains",
            "e.g. sassview diff gemm.cu --toolchain 12.9 --toolchain default",
        )
    chosen = toolchains if len(toolchains) == 2 else (toolchains or (None,)) * 2
    sides = tuple(dataclasses.replace(build, toolchain=t) for t in chosen)
    return b if b is not None else a, (sides[0], sides[1])


def _named(spec: str, build: BuildOptions) -> str:
    return f"{spec} [toolchain {build.toolchain}]" if build.toolchain else spec
