"""How to build a CUDA C++ file: one record every way in takes, and the project's flags laid in.

`BuildOptions` is what the command line's build options (views/cli_build.py, the same on every
command), `sv.cuda_file(...)`, the pytest fixture and `sassview.compile` / `load` / `inspect`
all read into, so no view can take a flag another lacks. Where a build is given inline, as
keywords (`defines=["W=4"]`), those are `BuildKeywords` — the record's fields, in any sequence,
str or Path — and `BuildOptions.of` is the one place that reads them: the command line's
options (views/cli_build.py) and a declaration's settings (`declared_build`) are read through it
too, so a new build option is a field, its keyword and its reader here (and its flag).

`resolve_build` lays the file's compile_commands.json entry (compdb.py: found by walking up
from the file, or in the directory `-p` names) under the user's own flags, in one place: the
database's -D, -I and options first, the user's after them; the user's host compiler over the
database's -ccbin. What it found is said in `notes`, which a view prints or shows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from sassview.errors import InputError
from sassview.frontends.compdb import BuildFlags, build_flags, find_database

CUDA_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".cxx")
COMPILERS = ("auto", "nvrtc", "nvcc")


class BuildKeywords(TypedDict, total=False):
    """A build given as keywords: BuildOptions' fields (but `kernels_in`, which resolve_build
    sets), each in any spelling a caller has at hand. `defines` may be a mapping (`{"W": 4}`
    is `W=4`, `{"F": None}` is `F`); `compile_commands` a directory as str or Path."""

    defines: Sequence[str] | Mapping[str, Any]
    include_dirs: Sequence[str | Path]
    options: Sequence[str]
    compiler: str
    host_compiler: str | None
    instantiate: Sequence[str]
    include_before: Sequence[str | Path]
    compile_commands: bool | str | Path
    included_by: str | Path | None
    toolchain: str | None


@dataclass(frozen=True, slots=True)
class BuildOptions:
    """The build of one CUDA C++ file, as the user gave it (hashable: the pytest cache keys
    on it)."""

    defines: tuple[str, ...] = ()
    include_dirs: tuple[Path, ...] = ()
    options: tuple[str, ...] = ()
    compiler: str = "auto"  # auto | nvrtc | nvcc
    host_compiler: str | None = None
    instantiate: tuple[str, ...] = ()  # template kernels to compile: "tile<128, float>"
    include_before: tuple[Path, ...] = ()
    # True: the compile_commands.json found above the file; a Path: the one in that directory
    # (-p DIR); False: none (also what resolve_build leaves, so resolving twice adds nothing).
    compile_commands: bool | Path = True
    # A file that #includes this header: its lines before that #include go first (includer.py).
    included_by: Path | None = None
    # A CUDA release added with `sassview toolchain add` (toolchain/store.py); None: the default.
    toolchain: str | None = None
    # The files whose kernels are the program's: the header, when it is compiled in its
    # includer's context (resolve_build sets it; the includer's own kernels are not asked for).
    kernels_in: tuple[Path, ...] = ()

    @classmethod
    def of(cls, base: BuildOptions | None = None, /, **given: Any) -> BuildOptions:
        """`base` (default: the record's defaults) with the fields `given` as BuildKeywords
        in place of its own: what every keyword way in (the API, `sv.cuda_file`, the pytest
        fixture and its marker) builds through. An unknown keyword is a TypeError, as a
        function's own would be; an unknown compiler an InputError."""
        unknown = sorted(set(given) - set(BuildKeywords.__annotations__))
        if unknown:
            raise TypeError(f"{', '.join(unknown)}: not a build option (BuildKeywords)")
        read = {name: _READERS[name](value) for name, value in given.items()}
        build = dataclasses.replace(base, **read) if base is not None else cls(**read)
        if build.compiler not in COMPILERS:
            raise InputError(
                f"compiler={build.compiler!r} is not a compiler",
                f"use one of {', '.join(COMPILERS)}",
            )
        return build


# The source as it is, with no flags and no project's: what a library call and a kernel.py's
# string are built with unless told otherwise (the command line, a .cu file's declaration and
# the pytest fixture take compile_commands.json by default).
AS_GIVEN = BuildOptions(compile_commands=False)


def define_list(defines: Sequence[str] | Mapping[str, Any]) -> tuple[str, ...]:
    """-D values from a list (`["W=4"]`) or a mapping (`{"W": 4, "FAST": None}`)."""
    if isinstance(defines, Mapping):
        return tuple(str(k) if v is None else f"{k}={v}" for k, v in defines.items())
    return _strings(defines)


def _paths(values: Sequence[str | Path]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in values)


def _strings(values: Sequence[str]) -> tuple[str, ...]:
    if isinstance(values, str):  # one option given bare: a list of its letters was never meant
        return (values,)
    return tuple(values)


# The compiler options that choose the target, which sassview sets from --arch (`arch=`): given
# as an extra option they would quietly compile another target than the one asked and named.
_TARGET_OPTIONS = (
    "-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code",
)  # fmt: skip


def _compiler_options(values: Sequence[str]) -> tuple[str, ...]:
    """The extra options as given, but one choosing the target: an InputError naming --arch."""
    options = _strings(values)
    for option in options:
        name = option.split("=", 1)[0].split(None, 1)[0] if option.strip() else option
        if name in _TARGET_OPTIONS:
            raise InputError(
                f"option {option!r} chooses the target, which sassview sets from the arch",
                "give the target as --arch (-a sm_90a), or arch= in the API; the options are for"
                " the rest (-X=-maxrregcount=32)",
            )
    return options


def _where(value: bool | str | Path) -> bool | Path:
    return value if isinstance(value, bool) else Path(value)


def _maybe_path(value: str | Path | None) -> Path | None:
    return Path(value) if value is not None else None


def _same(value: Any) -> Any:
    return value


# How each keyword is read into its field (BuildKeywords' names; a test holds them equal).
_READERS: dict[str, Any] = {
    "defines": define_list,
    "include_dirs": _paths,
    "options": _compiler_options,
    "compiler": _same,
    "host_compiler": _same,
    "instantiate": _strings,
    "include_before": _paths,
    "compile_commands": _where,
    "included_by": _maybe_path,
    "toolchain": _same,
}


@dataclass(frozen=True, slots=True)
class FileBuild:
    """A file's build with its project's flags laid in."""

    options: BuildOptions  # compile_commands is False here: the database is in already
    archs: tuple[str, ...] = ()  # the database's -arch/-gencode targets: the default --arch
    flags: BuildFlags | None = None
    notes: tuple[str, ...] = ()  # what was found and what of it is not used, for the user


def resolve_build(path: Path, build: BuildOptions) -> FileBuild:
    """`build` for the CUDA file `path`, under its compile_commands.json entry if any, and in
    the context of the file `build.included_by` names."""
    if path.suffix not in CUDA_SUFFIXES:
        return FileBuild(dataclasses.replace(build, compile_commands=False, included_by=None))
    found = _with_database(path, build)
    includer, how = build.included_by, "(its lines before)"
    if includer is None and _wants_includer(path, build):
        from sassview.frontends.includer import find_includers

        includers = find_includers(path, found.options.include_dirs)
        if includers:
            includer = includers[0]
            how = f"(its lines before; {_others(includers)})"
    if includer is None:
        return found
    from sassview import cache
    from sassview.frontends.includer import context_file

    merged = found.options
    context = context_file(
        includer, path, merged.include_dirs, cache.scratch_dir("includer-context")
    )
    in_context = dataclasses.replace(
        merged,
        include_dirs=(*merged.include_dirs, includer.resolve().parent),
        include_before=(context, *merged.include_before),
        included_by=None,
        kernels_in=(path.resolve(),),
    )
    note = f"note: {path.name} compiled as {includer} includes it {how}"
    return dataclasses.replace(found, options=in_context, notes=(*found.notes, note))


_HEADER_SUFFIXES = (".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl")


def _wants_includer(path: Path, build: BuildOptions) -> bool:
    """A header checked alone, with nothing given ahead of it: its includer's context is the
    build's (with --no-compile-commands, the user asked for the file as it is)."""
    return (
        path.suffix in _HEADER_SUFFIXES
        and not build.include_before
        and build.compile_commands is not False
    )


def _others(includers: Sequence[Path]) -> str:
    rest = len(includers) - 1
    if rest == 0:
        return "the one file in the project that includes it"
    return f"the nearest of {len(includers)} files that include it; --included-by FILE for another"


def _with_database(path: Path, build: BuildOptions) -> FileBuild:
    """`build` under the file's compile_commands.json entry, if it has one: the database found
    above it (or with -p), else the one sassview's configure of its CMake project writes."""
    done = dataclasses.replace(build, compile_commands=False)
    if build.compile_commands is False:
        return FileBuild(done)
    directory = build.compile_commands if isinstance(build.compile_commands, Path) else None
    database = find_database(path, directory)
    project: tuple[str, ...] = ()
    if database is None and directory is None:
        from sassview.frontends.cmake_project import project_database

        database, project = project_database(path)
        if database is None and not project:
            from sassview.frontends.makefile_flags import makefile_note

            note = makefile_note(path)
            return FileBuild(done, notes=(note,) if note else ())
    flags = build_flags(path, database) if database else None
    if flags is None:
        if directory is not None:
            missing = f"note: {database} has no entry for {path} (nor one including it)"
            return FileBuild(done, notes=(missing,))
        if database is not None:  # configured, and no target compiles it
            project = (
                *project,
                f"  no target of it compiles {path.name} (nor a file including it): "
                "no project flags for it",
            )
        return FileBuild(done, notes=project)
    merged = dataclasses.replace(
        done,
        defines=(*flags.defines, *build.defines),
        include_dirs=(*flags.include_dirs, *build.include_dirs),
        options=(*flags.options, *build.options),
        host_compiler=build.host_compiler or flags.host_compiler,
        include_before=(*flags.include_before, *build.include_before),
    )
    _say_origins(flags, build)
    return FileBuild(merged, flags.archs, flags, _notes(path, flags, project))


def _notes(path: Path, flags: BuildFlags, project: tuple[str, ...] = ()) -> tuple[str, ...]:
    via = "" if flags.entry == path.resolve() else f" (as included by {flags.entry})"
    if project:
        notes = [project[0] + via, *project[1:]]
    else:
        notes = [f"note: build flags from {flags.database}{via}"]
    if flags.ignored:
        notes.append(f"  ignored, host or build only: {' '.join(flags.ignored)}")
    if flags.not_honoured:
        notes.append(f"  not honoured: {' '.join(flags.not_honoured)}")
    return tuple(notes)


def _say_origins(flags: BuildFlags, build: BuildOptions) -> None:
    """With -v: which flag came from where (the project's compile command, the user's own)."""
    import logging

    log = logging.getLogger("sassview")
    if not log.isEnabledFor(logging.INFO):
        return
    for origin, include, defines, before, options in (
        (f"{flags.database.name} ({flags.entry.name}'s command)", flags.include_dirs,
         flags.defines, flags.include_before, flags.options),
        ("the command line", build.include_dirs, build.defines, build.include_before,
         build.options),
    ):  # fmt: skip
        said = [
            *(f"-I {i}" for i in include),
            *(f"-D {d}" for d in defines),
            *(f"--include-before {b}" for b in before),
            *options,
        ]
        if said:
            log.info("flags from %s: %s", origin, " ".join(said))
    if flags.archs:
        log.info("targets from %s: %s", flags.database.name, " ".join(flags.archs))


def declared_build(
    base: Path, settings: Mapping[str, Any], defines: Sequence[str], options: Sequence[str]
) -> BuildOptions:
    """The build a `sv.cuda` / `sv.cuda_file` declaration's settings say (paths relative to
    `base`), with a variant's `defines` and `options` in place of the declared ones: read as
    every keyword way in reads them (BuildOptions.of)."""
    given = {k: v for k, v in settings.items() if k in BuildKeywords.__annotations__}
    return _under(base, BuildOptions.of(**{**given, "defines": defines, "options": options}))


def _under(base: Path, build: BuildOptions) -> BuildOptions:
    """`build` with its relative paths taken from `base` (a kernel file's directory)."""
    where = build.compile_commands
    return dataclasses.replace(
        build,
        include_dirs=tuple(base / i for i in build.include_dirs),
        include_before=tuple(base / p for p in build.include_before),
        compile_commands=base / where if isinstance(where, Path) else where,
        included_by=base / build.included_by if build.included_by else None,
    )


# The order sv.cuda_file always kept its settings in (a label's settings read in it); a
# build keyword added since follows them.
_SETTINGS_ORDER = (
    "defines", "include_dirs", "options", "file", "compiler", "instantiate", "include_before",
    "host_compiler", "included_by", "compile_commands",
)  # fmt: skip


def declaration_settings(build: BuildOptions) -> dict[str, Any]:
    """The settings of a `sv.cuda_file` declaration that builds as `build` (declared_build's
    inverse), paths as text: what sweep, try and diff declare for a .cu named on the command
    line."""
    plain = {name: _plain(getattr(build, name)) for name in BuildKeywords.__annotations__}
    plain["file"] = True
    later = [name for name in plain if name not in _SETTINGS_ORDER]
    return {name: plain[name] for name in (*_SETTINGS_ORDER, *later)}


def _plain(value: Any) -> Any:
    """A field's value with its paths as text (a tuple of them, each)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value
