"""`sassview` on the command line: check, doctor, cache.

Human output goes to stdout, progress and errors to stderr. Exit codes: 0 fine, 1 a check
failed, 2 usage, input or toolchain error. Every SassviewError becomes one message with its
hint; a traceback means a bug in sassview.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sassview.api import DEFAULT_ARCH
from sassview.errors import InputError, SassviewError
from sassview.views.cli_build import arch_list, build_options, file_build
from sassview.views.cli_tui import install as _install_tui
from sassview.views.fail import fail as _fail
from sassview.views.fail import visible
from sassview.views.variant_limit import MAX_VARIANTS_HELP

if TYPE_CHECKING:
    from sassview.api import BuildOptions
    from sassview.inspection import Inspection
    from sassview.ir import Program


def _progress(text: str) -> None:
    if sys.stderr.isatty():
        click.echo(text, err=True)


class _LazyGroup(click.Group):
    """The commands in modules of their own (cli_*.py), each imported when it is named (click's
    lazy-group pattern): `check` and `tui` import none of them, `--help` each to list it. Eager,
    they cost every command ~5 ms of CPU (python -X importtime)."""

    LAZY = {
        "baseline": "cli_baseline:baseline",
        "cache": "cli_cache:cache_group",
        "diff": "cli_diff:diff",
        "export": "cli_export:export_command",
        "filecheck": "cli_filecheck:filecheck",
        "mcp": "cli_mcp:mcp_command",
        "sweep": "cli_sweep:sweep",
        "toolchain": "cli_toolchain:toolchain_group",
        "try": "cli_try:try_command",
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.LAZY and cmd_name not in self.commands:
            module, name = self.LAZY[cmd_name].split(":")
            command = getattr(importlib.import_module(f"sassview.views.{module}"), name)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sassview", prog_name="sassview")
@click.option(
    "--verbose",
    "-v",
    is_flag=True,
    help="Say on stderr what was compiled, disassembled or found in the cache.",
)
def cli(verbose: bool) -> None:
    """See what the CUDA compiler made of your kernels: PTX and SASS, without a GPU."""
    from sassview.toolchain.env_seconds import check_timeouts

    check_timeouts()  # a bad value is said even where a warm run would start no tool
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
    help="Target(s), e.g. sm_90a or sm_80,sm_90a "
    f"(default: {DEFAULT_ARCH} for CUDA C++, .target for PTX).",
)
@click.option("--kernel", "-k", help="Only this kernel (mangled or demangled name).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@build_options()
@click.option(
    "--block",
    help="Thread block shape the coalescing and bank-conflict counts assume, e.g. 16x16 "
    "(default: the kernel's .reqntid, else a warp of 32 consecutive threadIdx.x).",
)
@click.option("--max-variants", type=click.IntRange(min=1), help=MAX_VARIANTS_HELP)
@click.option(
    "--try",
    "run_trials",
    is_flag=True,
    help="Try each hint's knob (a variant compile each, cached, as `sassview try` does) and say "
    "whether it helped; without it such hints are marked untried.",
)
def check(
    paths: tuple[Path, ...],
    archs: tuple[str, ...],
    kernel: str | None,
    as_json: bool,
    build: BuildOptions,
    block: str | None,
    max_variants: int | None,
    run_trials: bool,
) -> None:
    """Compile or read each PATH (.cu, .ptx, .cubin, fatbin) and report every kernel's resources."""
    from sassview.analyses.loops.across import ArchDifference, arch_differences
    from sassview.api import input_file, load
    from sassview.gcpause import pause as pause_gc
    from sassview.inspection import inspect_program
    from sassview.report.summary import check_document, program_summary
    from sassview.toolchain.locate import toolchain_versions
    from sassview.views.paths import as_typed
    from sassview.views.render import arch_notes, render_program
    from sassview.views.user_output import user_output_to_stderr

    summaries = []
    resume_gc = pause_gc(freeze=True)  # the models are acyclic records: sassview.gcpause
    across: list[ArchDifference] = []  # loops rolled on one arch, unrolled on another
    try:
        _warn_on_mixed_releases()
        shape = _block_shape(block)
        for path in paths:
            _progress(f"sassview: reading {path} …")
            if path.is_dir():  # a Triton cache is read; discover.py loads for a directory only
                from sassview.api import directory_kind

                if directory_kind(path) is None:
                    raise InputError(f"{path} is a directory, not a file", _directory_hint(path))
            if not path.is_dir():
                input_file(path)  # a link loop or a dangling link said as such, before any lookup
            trials: dict[int, Any] = {}  # id(program) -> (kernel file, job): its hints' knobs
            with user_output_to_stderr():  # a kernel.py's prints must not reach the JSON
                found = file_build(path, build)
                if path.suffix == ".py":
                    programs = _load_kernel_file(path, archs, max_variants, build.toolchain, trials)
                elif path.is_dir():
                    programs = _load_triton_cache(path, kernel)
                else:
                    programs = load(path, arch=arch_list(archs, found), build=found.options)
            if kernel and path.suffix == ".py":  # several kernels: keep the programs with it
                programs = _with_kernel(programs, kernel)
            focus = None if path.is_dir() else kernel  # a cache's: chosen above, by entry too
            censuses = []
            for program in programs:
                inspections = inspect_program(program, focus, block=shape)
                with user_output_to_stderr():  # each hint's standing (steer/standing.py)
                    inspections = _standings(
                        trials.get(id(program)), path, inspections, found, run_trials
                    )
                summary = program_summary(program, inspections)
                summaries.append(summary)
                censuses += [_census(program, i) for i in inspections]
                if not as_json:
                    click.echo(visible(as_typed(render_program(summary))))
            differ = arch_differences(censuses)
            across += differ
            for line in [] if as_json else arch_notes(differ):
                click.echo(visible(as_typed(line)))
        if as_json:
            document = check_document(summaries, toolchain_versions(), across)
            click.echo(json.dumps(document, indent=2))
    except SassviewError as exc:
        _fail(exc)
    finally:
        resume_gc()


def _census(program: Program, insp: Inspection) -> tuple[str, str, Any]:
    """(arch, the kernel as its variant and name, its loop entries): across.py's input."""
    from sassview.analyses.loops.entry import UnrollFacts

    label = program.artifacts.label
    name = f"{label} · {insp.kernel.display_name}" if label else insp.kernel.display_name
    return program.arch, name, insp.typed_facts(UnrollFacts).entries


def _with_kernel(programs: list[Any], kernel: str) -> list[Any]:
    """The programs of a kernel.py that hold `kernel`; none: the first one's error, naming
    the kernels it has."""
    found = [p for p in programs if any(k.matches(kernel) for k in p.kernels)]
    if not found and programs:
        programs[0].kernel(kernel)  # raises
    return found


def _directory_hint(folder: Path) -> str:
    """What in `folder` sassview can read: its kernel.py first, then its kernel files."""
    try:
        entries = list(folder.iterdir())
    except OSError:  # unreadable: say only what kinds of file to give
        entries = []
    files = sorted(p.name for p in entries if p.suffix in (".cu", ".ptx", ".cubin"))
    shown = ", ".join(files[:4]) + (", …" if len(files) > 4 else "")
    if (folder / "kernel.py").is_file():
        return f"point at {folder / 'kernel.py'} (it declares what to compile)" + (
            f", or one of {shown}" if files else ""
        )
    if files:
        return f"point at one of its files: {shown}"
    return "point at a kernel.py, .cu, .ptx or .cubin file"


def _block_shape(text: str | None) -> Any:
    """--block 16x16 -> a BlockShape (None when not given); malformed: an input error."""
    if text is None:
        return None
    from sassview.errors import InputError
    from sassview.graph.lanes import block_too_large, parse_block

    shape = parse_block(text)
    if shape is None:
        raise InputError(
            f"--block {text!r} is not a block shape",
            "give the threads per block as X, XxY or XxYxZ, e.g. --block 256 or --block 16x16",
        )
    too_large = block_too_large(shape)
    if too_large:
        raise InputError(
            f"--block {text!r} cannot be launched: {too_large}",
            "give the block the kernel is launched with (at most 1024 threads; z at most 64)",
        )
    return shape


def _standings(
    where: Any, path: Path, inspections: list[Any], found: Any, run_trials: bool
) -> list[Any]:
    """The inspections with each hint's standing decided (sassview/steer/standing.py): a
    kernel.py program's by its job, a .cu file's as sweep and try compile it, a Triton
    cache's said untried (nothing there compiles a variant)."""
    from sassview.steer.standing import decide, decide_file

    if where is None:
        return decide_file(path, inspections, found.options, run_trials=run_trials)
    kernel_file, job = where
    return decide(kernel_file, job, inspections, run_trials=run_trials)


def _load_kernel_file(
    path: Path,
    archs: tuple[str, ...],
    max_variants: int | None,
    toolchain: str | None = None,
    trials: dict[int, Any] | None = None,
) -> list[Any]:
    from sassview.api import kernel_file_jobs, load_kernel_file
    from sassview.views.variant_limit import variant_guard

    guard = variant_guard(max_variants, path.name)
    kernel_file, programs = load_kernel_file(
        path, arch=list(archs) or None, allow=guard, toolchain=toolchain
    )
    if trials is not None:  # each program's job, for its hints' knobs (`check --try`)
        jobs = kernel_file_jobs(kernel_file, arch=list(archs) or None, toolchain=toolchain)
        trials.update({id(p): (kernel_file, j) for p, j in zip(programs, jobs, strict=True)})
    for u in kernel_file.undeclared:
        click.echo(f"{path}:{u.line}: note: {u.kind} kernel {u.name} is not declared", err=True)
        click.echo(f"  add: {u.hint}", err=True)
    for line, note in kernel_file.notes():
        click.echo(f"{path}:{line}: note: {note}", err=True)
    return programs


def _load_triton_cache(path: Path, kernel: str | None) -> list[Any]:
    """A Triton cache's kernels (those `kernel` names); how many, and how many torch.compile
    made, said on stderr (the labels say which)."""
    from sassview.api import load_triton_cache

    programs = load_triton_cache(path, kernel)
    inductor = sum(p.artifacts.variant.get("from") == "torch.compile" for p in programs)
    made = f", {inductor} made by torch.compile" if inductor else ""
    count = f"{len(programs)} kernel" + ("" if len(programs) == 1 else "s")
    click.echo(f"note: {path}: {count} from Triton's cache{made}", err=True)
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
    problems += _doctor_nvcc(tools)
    mismatch = release_mismatch(tools)
    if mismatch:
        problems += 1
        click.echo(f"MISMATCH {mismatch}")
        click.echo(
            "         fix: keep nvidia-cuda-nvrtc, nvidia-nvjitlink and nvidia-cuda-nvdisasm"
            " on one release"
        )
    click.echo(f"cache    {cache.cache_root()}  {cache.state()}".rstrip())
    problems += _doctor_toolchains()
    _doctor_frontends()
    sys.exit(2 if problems else 0)


def _doctor_toolchains() -> int:
    """The stored releases (`sassview toolchain list`); a broken one is a problem."""
    from sassview.toolchain.store import stored_releases
    from sassview.views.cli_toolchain import toolchain_lines

    if not stored_releases():
        click.echo(f"{'stored':<8} {'none':<10} other CUDA releases: sassview toolchain add 12.9")
        return 0
    lines = toolchain_lines()[1:]  # the default's tools are listed above
    for line in lines:
        click.echo(f"{'BROKEN' if 'BROKEN' in line else 'stored':<8} {line}")
    return sum("BROKEN" in line for line in lines)


def _doctor_frontends() -> None:
    """Each frontend of a kernel.py (frontends/registry.py): its version, or what brings it.
    An absent one is no problem: only the kernel files that use it need it."""
    from sassview.api import frontends, install_hint

    for f in frontends().values():
        version = f.version()
        calls = ", ".join(f"sv.{name}" for name in f.declarations) or "no sv. declaration"
        state = "ok" if version else "absent"
        line = f"{state:<8} {f.kind:<10} {version or '-':<10} {f.title} ({calls})"
        if not f.package:
            line += ": comes with sassview"
        elif not version:  # the way to get it, only where it is missing
            line += f": {install_hint(f)}"
        click.echo(line)
        if f.kind == "triton" and version:
            _doctor_triton_ptxas()


def _doctor_triton_ptxas() -> None:
    """Triton runs its own ptxas, one below sm_90 and one from sm_90 on (its knobs, which
    TRITON_PTXAS_PATH and TRITON_PTXAS_BLACKWELL_PATH set); `--toolchain R` replaces both."""
    try:
        from triton import knobs

        tools = [("below sm_90", knobs.nvidia.ptxas), ("from sm_90", knobs.nvidia.ptxas_blackwell)]
        found = [(where, tool.version, tool.path) for where, tool in tools]
    except Exception as exc:  # a Triton without these knobs: say so, doctor goes on
        click.echo(f"{'':<8} {'':<10} {'-':<10} Triton's ptxas: unknown ({type(exc).__name__})")
        return
    for where, version, path in found:
        click.echo(f"{'':<8} {'':<10} {version:<10} Triton's ptxas {where}: {path}")


def _doctor_nvcc(tools: list[Any]) -> int:
    """nvcc and the host compiler it drives: needed only for whole programs, so their absence
    is reported but is no problem (NVRTC still compiles device-only files)."""
    from sassview.toolchain.locate import OVERRIDES, host_compiler, nvcc_survey

    nvcc = nvcc_survey()
    if nvcc.path and not nvcc.problem and nvcc.version:
        tools.append(nvcc)
        click.echo(f"ok       {'nvcc':<10} {nvcc.version:<10} {nvcc.path}  ({nvcc.found_via})")
    else:
        click.echo(f"absent   {'nvcc':<10} {'-':<10} {nvcc.problem or 'not found'}")
        click.echo(
            f"         for whole programs: pip install {nvcc.package}  (or set {OVERRIDES['nvcc']})"
        )
    try:
        host = host_compiler()
    except SassviewError as exc:
        click.echo(f"MISSING  {'host C++':<10} {'-':<10} {exc.message}")
        return 1
    if host is None:
        click.echo(f"absent   {'host C++':<10} {'-':<10} no g++ or clang++ on PATH")
        click.echo(
            "         for whole programs (nvcc): install g++ or clang++,"
            " or set SASSVIEW_HOST_COMPILER"
        )
    else:
        click.echo(f"ok       {'host C++':<10} {host.path}  {host.version}  ({host.found_via})")
    return 0


class _Stopped(BaseException):
    """Ctrl-C or SIGTERM, raised where the program is, so every `finally` on the way out runs
    (tools and compiles ended, temporaries removed). Not a KeyboardInterrupt: click would turn
    that into "Aborted!" and exit 1, which here means "a check failed"."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.code = 128 + signum
        self.why = {signal.SIGINT: "interrupted", signal.SIGHUP: "hung up"}.get(
            signal.Signals(signum), "terminated"
        )


# Ctrl-C, SIGTERM and SIGHUP (the terminal closed, an ssh dropped) end a run the same way.
_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _stop(signum: int, frame: object) -> None:
    for s in _STOPS:  # once: a second signal must not cut the cleanup
        signal.signal(s, signal.SIG_IGN)
    raise _Stopped(signum)


def main() -> None:
    for s in _STOPS:
        signal.signal(s, _stop)
    try:
        _run()
    except _Stopped as stop:
        with contextlib.suppress(OSError):  # a closed terminal cannot be written to
            click.echo(f"sassview: {stop.why}", err=True)
        sys.exit(stop.code)


def _run() -> None:
    """The command, with stdout sassview's alone (views/user_output.py): a report that cannot
    be written, or no stdout at all, is one error (exit 2), never a traceback or a silent 0."""
    from sassview.views.user_output import finish_user_output, take_stdout

    try:
        take_stdout()
        try:
            cli(prog_name="sassview")  # always ends in SystemExit
        except SystemExit:
            _keep_cache_in_its_limit()  # not after a stop: the next command trims the cache
            raise
        finally:
            finish_user_output()
    except SassviewError as exc:  # the report could not be written
        _fail(exc)


def _keep_cache_in_its_limit() -> None:
    """SASSVIEW_CACHE_MAX_MB: trim after each command, so the cache never stays over it."""
    from sassview import cache

    try:
        cache.enforce_limit()
    except SassviewError as exc:
        click.echo(f"warning: {exc.message} ({exc.hint})", err=True)


_install_tui(cli)  # `sassview tui PATH`, and `sassview PATH` for short
