"""A project's build flags for one file, from its compile_commands.json (CMake's
CMAKE_EXPORT_COMPILE_COMMANDS, Bear).

Found as clang tools find it: in the directory named with `-p DIR`, else in the file's directory
or any above it (or their `build/`). The entry for the file itself is used; a header, which has
none, takes the flags of the first translation unit whose includes reach it. What changes device
code is kept — `-I`, `-isystem`, `-D`, `-U`, `-include`, `-std`, `-arch`/`-gencode` (the default
architectures), `--expt-relaxed-constexpr`, `--extended-lambda`, `--use_fast_math`,
`-maxrregcount`, `-Xptxas`, `-rdc`, `-G`, `-ccbin` (the host compiler); what only the host or
the build sees (`-c`, `-o`, `-M*`, `-O`, `-Xcompiler`, `-W`, `-f`) is named as ignored; anything
else is named as not honoured, never dropped silently.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sassview.errors import InputError

DATABASE = "compile_commands.json"
_SOURCE_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")
# Flags whose value is the next argument when not joined (-I dir, -gencode arch=...).
_TAKES_VALUE = {
    "-I", "-isystem", "-D", "-U", "-include", "--pre-include", "-arch", "--gpu-architecture",
    "-gencode", "--generate-code", "-code", "--gpu-code", "-Xptxas", "--ptxas-options",
    "-maxrregcount", "--maxrregcount", "-ccbin", "--compiler-bindir", "-o", "-MF", "-MT", "-MQ",
    "-Xcompiler", "--compiler-options", "-x", "-std", "-rdc", "--relocatable-device-code",
    "-Xlinker", "-l", "-L", "-ftemplate-depth", "--threads", "-t",
}  # fmt: skip
_KEPT_FLAGS = {
    "--expt-relaxed-constexpr", "--expt-extended-lambda", "--extended-lambda",
    "--use_fast_math", "-use_fast_math", "-G", "--device-debug",
}  # fmt: skip
_IGNORED_FLAGS = re.compile(
    r"^(?:-c|-o|-M[DFTQPG]?|-MMD|-O\d?|-Os|-Ofast|-g|-W.*|-f.*|-pthread|-Xcompiler|"
    r"--compiler-options|-x|-Xlinker|-l.*|-L.*|-lineinfo|--generate-line-info|-m64|--threads|-t|"
    r"-forward-unknown-to-host-compiler|--forward-unknown-to-host-compiler|-ftemplate-depth)$"
)
_SM = re.compile(r"\b(?:sm|compute)_(\d+[af]?)\b")


@dataclass(frozen=True, slots=True)
class BuildFlags:
    """What a database says about one file, in sassview's terms."""

    database: Path
    entry: Path  # the translation unit whose command this is (the file, or one including it)
    include_dirs: tuple[Path, ...] = ()
    defines: tuple[str, ...] = ()
    include_before: tuple[Path, ...] = ()
    options: tuple[str, ...] = ()  # passed to NVRTC and nvcc alike
    archs: tuple[str, ...] = ()
    host_compiler: str | None = None
    ignored: tuple[str, ...] = field(default=())  # build- or host-only: no effect on device code
    not_honoured: tuple[str, ...] = field(default=())


def find_database(source: Path, directory: Path | None = None) -> Path | None:
    """The compile_commands.json for `source`: in `directory` (-p), else walking up."""
    if directory is not None:
        path = directory / DATABASE if directory.is_dir() else directory
        if not path.is_file():
            raise InputError(f"-p {directory}: no {DATABASE} there", "point -p at the build dir")
        return path
    for parent in source.resolve().parents:
        for candidate in (parent / DATABASE, parent / "build" / DATABASE):
            if candidate.is_file():
                return candidate
    return None


def build_flags(source: Path, database: Path) -> BuildFlags | None:
    """The flags for `source` from `database`, or None when no entry covers it."""
    entries = _entries(database)
    target = source.resolve()
    for directory, file, argv in entries:
        if file == target:
            return _flags(database, file, directory, argv)
    if target.suffix in _SOURCE_SUFFIXES:
        return None
    from sassview.frontends.includes import local_includes

    cuda_first = sorted(entries, key=lambda e: e[1].suffix != ".cu")
    for directory, file, argv in cuda_first:
        flags = _flags(database, file, directory, argv)
        try:
            data = file.read_bytes()
        except OSError:
            continue
        scan = local_includes(
            data, file.parent, flags.include_dirs, defines=flags.defines,
            pre_includes=flags.include_before,
        )  # fmt: skip
        if str(target) in scan.present():
            return flags
    return None


def _entries(database: Path) -> list[tuple[Path, Path, list[str]]]:
    try:
        raw = json.loads(database.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"{database}: not a compile database ({exc})", "regenerate it") from None
    if not isinstance(raw, list):
        raise InputError(f"{database}: not a list of entries", "regenerate it")
    out = []
    for number, item in enumerate(raw, 1):
        if not isinstance(item, dict):  # a list of numbers is no database: say so, not "fine"
            raise InputError(
                f"{database}: entry {number} is {type(item).__name__}, not an object with"
                ' "directory", "file" and "command" or "arguments"',
                "regenerate it (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; else bear -- make)",
            )
        if "file" not in item:
            continue
        directory = Path(str(item.get("directory", database.parent)))
        argv = item.get("arguments")
        if not isinstance(argv, list):
            argv = _command_words(database, item)
        out.append((directory, (directory / str(item["file"])).resolve(), [str(a) for a in argv]))
    return out


def _command_words(database: Path, item: dict[str, object]) -> list[str]:
    """An entry's "command" string as the shell would split it (and no shell runs it)."""
    command = str(item.get("command", ""))
    try:
        return shlex.split(command)
    except ValueError as exc:  # an unbalanced quote, a trailing backslash
        raise InputError(
            f"{database}: the command for {item['file']} cannot be split into words ({exc})",
            "regenerate the compile database (CMake: CMAKE_EXPORT_COMPILE_COMMANDS=ON)",
        ) from None


def _split(argv: list[str]) -> list[tuple[str, str | None, str]]:
    """(flag, value, as written): `-I dir`, `-Idir`, `-arch=sm_90`, `-arch sm_90` alike."""
    pairs: list[tuple[str, str | None, str]] = []
    i = 1  # argv[0] is the compiler
    while i < len(argv):
        arg = argv[i]
        if arg in _TAKES_VALUE and i + 1 < len(argv):
            pairs.append((arg, argv[i + 1], f"{arg} {argv[i + 1]}"))
            i += 2
            continue
        joined = next((f for f in ("-I", "-D", "-U") if arg.startswith(f) and arg != f), None)
        if joined:
            pairs.append((joined, arg[len(joined) :], arg))
        elif "=" in arg and arg.startswith("-"):
            flag, value = arg.split("=", 1)
            pairs.append((flag, value, arg))
        else:
            pairs.append((arg, None, arg))
        i += 1
    return pairs


# The flags kept, by what they feed: every spelling of one flag side by side.
_INCLUDE_FLAGS = frozenset({"-I", "-isystem", "--include-path", "--system-include"})
_DEFINE_FLAGS = frozenset({"-D", "--define-macro"})
_PRE_INCLUDE_FLAGS = frozenset({"-include", "--pre-include"})
_ARCH_FLAGS = frozenset({"-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code"})
_PTXAS_FLAGS = frozenset({"-Xptxas", "--ptxas-options"})
_HOST_COMPILER_FLAGS = frozenset({"-ccbin", "--compiler-bindir"})
# Flags passed on as one option, in the spelling NVRTC and nvcc both take.
_OPTION_FORMS = {
    "-U": "-U{}", "--undefine-macro": "-U{}",
    "-std": "-std={}", "--std": "-std={}",
    "-maxrregcount": "-maxrregcount={}", "--maxrregcount": "-maxrregcount={}",
    "-rdc": "-rdc={}", "--relocatable-device-code": "-rdc={}",
}  # fmt: skip


@dataclass(slots=True)
class _Reading:
    """One entry's flags as read so far, in BuildFlags' fields, each list in the order written."""

    database: Path
    file: Path
    directory: Path
    includes: list[Path] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)
    before: list[Path] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)
    host: str | None = None
    ignored: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def path(self, value: str) -> Path:
        """A path as the compiler would open it: relative to the entry's directory."""
        return (self.directory / value).resolve()

    def build_flags(self) -> BuildFlags:
        return BuildFlags(
            self.database, self.file, tuple(self.includes), tuple(self.defines),
            tuple(self.before), tuple(self.options), tuple(dict.fromkeys(self.archs)),
            self.host, tuple(self.ignored), tuple(self.refused),
        )  # fmt: skip


def _flags(database: Path, file: Path, directory: Path, argv: list[str]) -> BuildFlags:
    reading = _Reading(database, file, directory)
    for flag, value, shown in _split(argv):
        if value is None and not flag.startswith("-"):
            if reading.path(flag) != file:
                reading.refused.append(shown)  # a second input file
        elif not _take_valued(reading, flag, str(value), shown):
            _take_plain(reading, flag, value, shown)
    return reading.build_flags()


def _take_valued(reading: _Reading, flag: str, value: str, shown: str) -> bool:
    """Read one of the kept flags that name a value; False for any other flag. (A valued flag
    written last, with nothing after it, reads as the text "None": kept as it was.)"""
    if flag in _INCLUDE_FLAGS:
        reading.includes.append(reading.path(value))
    elif flag in _DEFINE_FLAGS:
        reading.defines.append(value)
    elif flag in _PRE_INCLUDE_FLAGS:
        reading.before.append(reading.path(value))
    elif flag in _OPTION_FORMS:
        reading.options.append(_OPTION_FORMS[flag].format(value))
    elif flag in _ARCH_FLAGS:
        found = _archs(value)
        reading.archs += found
        if not found:
            reading.refused.append(shown)
    elif flag in _PTXAS_FLAGS:
        reading.options += [f"--ptxas-options={v}" for v in value.split(",") if v]
    elif flag in _HOST_COMPILER_FLAGS:
        _take_host_compiler(reading, value, shown)
    else:
        return False
    return True


def _take_host_compiler(reading: _Reading, program: str, shown: str) -> None:
    if _brought_by_checkout(reading.database, reading.file, reading.directory, program):
        reading.refused.append(f"{shown} (a program inside the project: pass --host-compiler)")
    else:
        reading.host = program


def _take_plain(reading: _Reading, flag: str, value: str | None, shown: str) -> None:
    """A switch kept as NVRTC spells it, else a flag named as ignored or as not honoured."""
    if value is None and flag in _KEPT_FLAGS:
        reading.options.append("--extended-lambda" if "lambda" in flag else flag)
    elif _IGNORED_FLAGS.match(flag):
        reading.ignored.append(shown)
    else:
        reading.refused.append(shown)


def _brought_by_checkout(database: Path, file: Path, directory: Path, program: str) -> bool:
    """Is the host compiler a database names a program inside the project (under the common
    directory of the database and the file)? A checked-out compile_commands.json could name a
    script of its own there, and sassview runs no program a checkout brings: a compiler on PATH
    or elsewhere on the machine is the user's."""
    found = shutil.which(program) if os.sep not in program else str(directory / program)
    if found is None:
        return False  # not found: host_compiler says so, and runs nothing
    project = os.path.commonpath([database.resolve().parent, file.parent])
    real = os.path.realpath(found)
    return project != os.sep and (real + os.sep).startswith(project + os.sep)


def _archs(value: str) -> list[str]:
    """sm_XX targets of -arch/-gencode values; a compute_XX alone means its sm_XX."""
    codes = value.split("code=", 1)[1] if "code=" in value else value
    found = [f"sm_{m}" for m in _SM.findall(codes) if f"sm_{m}" in codes]
    if not found:
        found = [f"sm_{m}" for m in _SM.findall(value)]
    return found
