"""`sassview tui PATH` — and `sassview PATH` for short — opens the terminal UI.

Textual is imported only when the command runs, so `sassview check` never pays for it. The
short form is a group-level rule rather than a change to the group's definition: when the first
word is not a command but names a file sassview reads, the group resolves it to `tui` (see
`install`), so `sassview check ...` and every other command behave exactly as before.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sassview.api import DEFAULT_ARCH
from sassview.errors import SassviewError
from sassview.views.cli_build import build_options

if TYPE_CHECKING:
    from sassview.api import BuildOptions

# What `sassview PATH` accepts as a PATH when the file does not exist yet (a typo is better
# reported by `tui` as a missing file than by click as an unknown command).
OPENABLE = (".cu", ".cuh", ".cpp", ".cc", ".cxx", ".py", ".ptx", ".cubin", ".fatbin", ".o")


@click.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))  # a dir: a Triton cache
@click.option(
    "--arch",
    "-a",
    "archs",
    multiple=True,
    help="Target(s), e.g. sm_90a or sm_80,sm_90a "
    f"(default: {DEFAULT_ARCH}, or what kernel.py declares).",
)
@click.option("--kernel", "-k", help="Open on this kernel (mangled or demangled name).")
@build_options()
@click.option("--no-watch", is_flag=True, help="Do not recompile when the file is saved.")
def tui(
    path: Path,
    archs: tuple[str, ...],
    kernel: str | None,
    build: BuildOptions,
    no_watch: bool,
) -> None:
    """Open PATH (.cu, kernel.py, .ptx, .cubin) with source, PTX and SASS side by side.

    The panes follow one another's cursor; findings, loops and registers are annotated; the
    file is recompiled in the background when it is saved. Press ? inside for the keys.
    """
    from sassview.tui.loader import Target

    arch = tuple(a.strip() for item in archs for a in item.split(",") if a.strip()) or None
    target = Target(path=path, arch=arch, kernel=kernel, build=build)
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        click.echo("error: sassview tui needs a terminal", err=True)
        click.echo("hint: run `sassview check PATH` for a report on a pipe", err=True)
        sys.exit(2)
    try:
        from sassview.tui import open_app

        open_app(target, watch=not no_watch).run()
    except SassviewError as exc:  # only failures before the app starts land here
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(exc.exit_code)


def _openable(word: str) -> bool:
    if os.path.isdir(word):  # a Triton cache directory
        from sassview.api import directory_kind

        return directory_kind(Path(word)) is not None
    return not word.startswith("-") and (os.path.isfile(word) or word.endswith(OPENABLE))


def install(group: click.Group) -> None:
    """Register `tui` on the group, and let a path in the command's place mean `tui PATH`."""
    group.add_command(tui)
    resolve = group.resolve_command

    def resolve_command(
        ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in group.list_commands(ctx) and _openable(args[0]):
            return "tui", tui, args
        return resolve(ctx, args)

    # An instance attribute: the group keeps its class, so other commands are untouched.
    setattr(group, "resolve_command", resolve_command)  # noqa: B010
