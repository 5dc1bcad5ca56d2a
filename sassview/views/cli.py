"""`sassview` on the command line: check, doctor, cache.

Human output goes to stdout, progress and errors to stderr. Exit codes: 0 fine, 1 a check
failed, 2 usage, input or toolchain error. Every SassviewError becomes one message with its
hint; a traceback means a bug in sassview.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

import click

from sassview.errors import SassviewError


def _fail(exc: SassviewError) -> None:
    click.echo(f"error: {exc.message}", err=True)
    if exc.detail:
        click.echo(exc.detail.rstrip(), err=True)
    if exc.hint:
        click.echo(f"hint: {exc.hint}", err=True)
    sys.exit(exc.exit_code)


def _progress(text: str) -> None:
    if sys.stderr.isatty():
        click.echo(text, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sassview", prog_name="sassview")
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Say on stderr what was compiled, disassembled or found in the cache.",
)
def cli(verbose: bool) -> None:
    """See what the CUDA compiler made of your kernels: PTX and SASS, without a GPU."""
    if verbose:
        import logging

        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("sassview: %(message)s"))
        logger = logging.getLogger("sassview")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--arch",
    "-a",
    "archs",
    multiple=True,
    help="Target(s), e.g. sm_90a or sm_80,sm_90a (default: sm_90a for CUDA C++, .target for PTX).",
)
@click.option("--kernel", "-k", help="Only this kernel (mangled or demangled name).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("-D", "defines", multiple=True, help="Macro for CUDA C++, e.g. -D BLOCK=128.")
@click.option(
    "-I",
    "include_dirs",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Include directory for CUDA C++.",
)
@click.option(
    "-X",
    "--option",
    "options",
    multiple=True,
    help="Extra compiler option, e.g. -X=-maxrregcount=32.",
)
def check(
    paths: tuple[Path, ...],
    archs: tuple[str, ...],
    kernel: str | None,
    as_json: bool,
    defines: tuple[str, ...],
    include_dirs: tuple[Path, ...],
    options: tuple[str, ...],
) -> None:
    """Compile or read each PATH (.cu, .ptx, .cubin, fatbin) and report every kernel's resources."""
    from sassview.api import load
    from sassview.inspection import inspect_program
    from sassview.toolchain.locate import toolchain_versions
    from sassview.views.render import render_program
    from sassview.views.summary import check_document, program_summary

    summaries = []
    try:
        _warn_on_mixed_releases()
        for path in paths:
            _progress(f"sassview: reading {path} …")
            if path.suffix == ".py":
                programs = _load_kernel_file(path, archs)
            else:
                programs = load(
                    path,
                    arch=list(archs) or None,
                    defines=defines,
                    include_dirs=include_dirs,
                    options=[o.lstrip("=") for o in options],
                )
            for program in programs:
                summary = program_summary(program, inspect_program(program, kernel))
                summaries.append(summary)
                if not as_json:
                    click.echo(render_program(summary))
        if as_json:
            document = check_document(summaries, toolchain_versions())
            click.echo(json.dumps(document, indent=2))
    except SassviewError as exc:
        _fail(exc)


def _load_kernel_file(path: Path, archs: tuple[str, ...]) -> list[Any]:
    from sassview.api import load_kernel_file

    kernel_file, programs = load_kernel_file(path, arch=list(archs) or None)
    for u in kernel_file.undeclared:
        click.echo(f"{path}:{u.line}: note: {u.kind} kernel {u.name} is not declared", err=True)
        click.echo(f"  add: {u.hint}", err=True)
    return programs


def _warn_on_mixed_releases() -> None:
    from sassview.toolchain.locate import release_mismatch, survey

    mismatch = release_mismatch(survey())
    if mismatch:
        click.echo(f"warning: {mismatch}; results may be wrong (run `sassview doctor`)", err=True)


@cli.command()
def doctor() -> None:
    """List every tool sassview uses: version, where it was found, what is missing."""
    from sassview import cache
    from sassview.toolchain.locate import OVERRIDES, release_mismatch, survey

    try:
        tools = survey(probe=True)  # ask each tool, even one whose version is remembered
    except SassviewError as exc:
        _fail(exc)
        return
    problems = 0
    for t in tools:
        if t.path and not t.problem and t.version:
            click.echo(f"ok       {t.name:<10} {t.version:<10} {t.path}  ({t.found_via})")
        else:
            problems += 1
            click.echo(f"MISSING  {t.name:<10} {'-':<10} {t.problem or 'not found'}")
            click.echo(f"         fix: pip install {t.package}   (or set {OVERRIDES[t.name]})")
    mismatch = release_mismatch(tools)
    if mismatch:
        problems += 1
        click.echo(f"MISMATCH {mismatch}")
        click.echo(
            "         fix: keep nvidia-cuda-nvrtc, nvidia-nvjitlink and nvidia-cuda-nvdisasm"
            " on one release"
        )
    click.echo(
        f"cache    {cache.cache_root()}" + ("" if cache.enabled() else "  (off: SASSVIEW_NO_CACHE)")
    )
    for name in ("triton", "cutlass"):
        import importlib.util

        found = importlib.util.find_spec(name) is not None
        click.echo(f"{'ok' if found else 'absent':<8} {name:<10} (frontend for kernel.py files)")
    sys.exit(2 if problems else 0)


@cli.group(name="cache")
def cache_group() -> None:
    """Inspect or empty the compile cache."""


@cache_group.command("info")
def cache_info() -> None:
    from sassview import cache

    found = cache.info()
    click.echo(f"{found.root}: {found.entries} entries, {found.bytes / 1e6:.1f} MB")


@cache_group.command("clear")
def cache_clear() -> None:
    from sassview import cache

    try:
        found = cache.clear()
    except SassviewError as exc:
        _fail(exc)
        return
    click.echo(f"removed {found.entries} entries ({found.bytes / 1e6:.1f} MB) from {found.root}")


@cache_group.command("prune")
@click.option("--max-mb", type=float, required=True, help="Keep at most this many MB.")
def cache_prune(max_mb: float) -> None:
    """Remove the least recently used entries until the cache fits in --max-mb."""
    from sassview import cache

    found = cache.prune(int(max_mb * 1_000_000))
    click.echo(f"removed {found.entries} entries ({found.bytes / 1e6:.1f} MB) from {found.root}")


class _Stopped(BaseException):
    """Ctrl-C or SIGTERM, raised where the program is, so every `finally` on the way out runs
    (tools and compiles ended, temporaries removed). Not a KeyboardInterrupt: click would turn
    that into "Aborted!" and exit 1, which here means "a check failed"."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.code = 128 + signum
        self.why = "interrupted" if signum == signal.SIGINT else "terminated"


def _stop(signum: int, frame: object) -> None:
    for s in (signal.SIGINT, signal.SIGTERM):  # once: a second signal must not cut the cleanup
        signal.signal(s, signal.SIG_IGN)
    raise _Stopped(signum)


def main() -> None:
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, _stop)
    try:
        try:
            cli(prog_name="sassview")  # always ends in SystemExit
        except SystemExit:
            _keep_cache_in_its_limit()  # not after a stop: the next command trims the cache
            raise
    except _Stopped as stop:
        click.echo(f"sassview: {stop.why}", err=True)
        sys.exit(stop.code)


def _keep_cache_in_its_limit() -> None:
    """SASSVIEW_CACHE_MAX_MB: trim after each command, so the cache never stays over it."""
    from sassview import cache

    try:
        cache.enforce_limit()
    except SassviewError as exc:
        click.echo(f"warning: {exc.message} ({exc.hint})", err=True)


# Commands in modules of their own, imported last: they use this module's helpers (_fail).
from sassview.views.cli_diff import diff as _diff  # noqa: E402
from sassview.views.cli_export import export_command as _export  # noqa: E402
from sassview.views.cli_filecheck import filecheck as _filecheck  # noqa: E402
from sassview.views.cli_sweep import sweep as _sweep  # noqa: E402
from sassview.views.cli_try import try_command as _try  # noqa: E402
from sassview.views.cli_tui import install as _install_tui  # noqa: E402

for _command in (_sweep, _try, _diff, _filecheck, _export):
    cli.add_command(_command)
_install_tui(cli)  # `sassview tui PATH`, and `sassview PATH` for short
