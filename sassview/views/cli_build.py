"""The build options every command takes, defined once: -D, -I, -X, --compiler, --host-compiler,
--instantiate, --include-before, --included-by, -p/--build-dir, --no-compile-commands.

`@build_options()` adds them to a command and hands it one `build: BuildOptions` in their place,
so `check`, the TUI, `export`, `sweep`, `try` and `diff` take the same flags, spelled and read
the same way, and a new option reaches all of them at once. `file_build` lays in the file's
compile_commands.json (frontends/build_options.py) and says on stderr what it took.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:  # imported where a command runs: --help and doctor read no build
    from sassview.api import BuildOptions, FileBuild

F = TypeVar("F", bound=Callable[..., Any])
# The options' names: the build keywords (a test holds them to BuildKeywords' names) but
# compile_commands, which -p and --no-compile-commands give between them.
_COMMAND_LINE_ONLY = ("build_dir", "no_compile_commands")
_NAMES = (
    "defines", "include_dirs", "options", "compiler", "host_compiler", "instantiate",
    "include_before", "included_by", "toolchain", *_COMMAND_LINE_ONLY,
)  # fmt: skip


def _options(build_dir_flags: Sequence[str], many_toolchains: bool) -> list[Callable[[F], F]]:
    return [
        click.option("-D", "defines", multiple=True, help="Macro for CUDA C++, e.g. -D BLOCK=128."),
        click.option(
            "-I",
            "include_dirs",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Include directory for CUDA C++.",
        ),
        click.option(
            "-X",
            "--option",
            "options",
            multiple=True,
            help="Extra compiler option, e.g. -X=-maxrregcount=32.",
        ),
        click.option(
            "--compiler",
            type=click.Choice(["auto", "nvrtc", "nvcc"]),
            default="auto",
            show_default=True,
            help="CUDA C++ compiler: auto takes NVRTC, or nvcc for host code and host headers.",
        ),
        click.option(
            "--host-compiler",
            metavar="PATH",
            help="The host C++ compiler nvcc drives (default: $SASSVIEW_HOST_COMPILER, g++, "
            "clang++).",
        ),
        click.option(
            "--instantiate",
            multiple=True,
            metavar="'NAME<ARGS>'",
            help="Compile this template kernel, e.g. --instantiate 'tile<128, float>'.",
        ),
        click.option(
            "--include-before",
            multiple=True,
            type=click.Path(path_type=Path),
            help="Include this file ahead of the source (the context a header expects).",
        ),
        click.option(
            "--included-by",
            type=click.Path(path_type=Path),
            metavar="FILE",
            help="Check a header as FILE includes it: FILE's lines before its #include first.",
        ),
        click.option(
            *build_dir_flags,
            "build_dir",
            type=click.Path(path_type=Path),
            help="Build directory with compile_commands.json (default: found above the file).",
        ),
        click.option(
            "--toolchain",
            "toolchain",
            metavar="RELEASE",
            multiple=many_toolchains,
            help="Compile CUDA C++ with this CUDA release's NVRTC, added with `sassview "
            "toolchain add RELEASE` (default: the release installed with sassview)"
            + ("; twice: one for each side." if many_toolchains else "."),
        ),
        click.option(
            "--no-compile-commands",
            is_flag=True,
            help="Use no compile_commands.json, even one found above the file.",
        ),
    ]


def build_options(
    *, build_dir_flags: Sequence[str] = ("-p", "--build-dir"), many_toolchains: bool = False
) -> Callable[[F], F]:
    """Add the build options to a click command; it receives them as `build: BuildOptions`.
    `sweep` keeps `-p` for its parameters, so it takes the build directory as --build-dir.
    `many_toolchains` (diff): --toolchain may be repeated, and the command receives the
    releases as `toolchains: tuple[str, ...]` (the build's own toolchain is then None)."""

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def with_build(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in _NAMES}
            if many_toolchains:
                kwargs["toolchains"] = tuple(given["toolchain"])
                given["toolchain"] = None
            kwargs["build"] = _record(given)
            return command(*args, **kwargs)

        decorated: Any = with_build
        for option in reversed(_options(build_dir_flags, many_toolchains)):
            decorated = option(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate


def _record(given: dict[str, Any]) -> BuildOptions:
    """The command line's build options as the record every way in reads them into
    (BuildOptions.of): the build keywords by their own names, -p and --no-compile-commands
    as `compile_commands`."""
    from sassview.api import BuildOptions

    where: bool | Path = given["build_dir"] if given["build_dir"] is not None else True
    keywords = {k: v for k, v in given.items() if k not in _COMMAND_LINE_ONLY}
    keywords["options"] = tuple(o.lstrip("=") for o in given["options"])  # -X=-O3: "=-O3"
    keywords["compile_commands"] = False if given["no_compile_commands"] else where
    return BuildOptions.of(**keywords)


def file_build(path: Path, build: BuildOptions) -> FileBuild:
    """`build` for `path` with its project's flags in; what was taken is said on stderr, and
    so is a build option given for a file it does not apply to."""
    from sassview.api import CUDA_SUFFIXES, BuildOptions, resolve_build

    # --toolchain applies to a kernel.py too (its CUDA C++ and Triton declarations).
    if path.suffix not in CUDA_SUFFIXES and build != BuildOptions(toolchain=build.toolchain):
        where = (
            "a kernel.py declares its own (sv.cuda(..., compiler='nvcc'),"
            " sv.cuda_file(..., defines=..., options=...))"
            if path.suffix == ".py"
            else "it is not compiled from C++"
        )
        click.echo(f"note: build options apply to CUDA C++ files; {path.name}: {where}", err=True)
    found = resolve_build(path, build)
    for note in found.notes:
        click.echo(note, err=True)
    return found


def arch_list(archs: Sequence[str], found: FileBuild) -> list[str] | None:
    """The command line's --arch, else the build's targets, else None (each view's default)."""
    return list(archs) or list(found.archs) or None
