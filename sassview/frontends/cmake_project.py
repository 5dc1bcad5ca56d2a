"""A CMake project's compile command for one file, when the project has no build directory.

A file inside a project with a `CMakeLists.txt` and no compile_commands.json is configured once
— never built — into sassview's own scratch directory, and the database CMake writes
(CMAKE_EXPORT_COMPILE_COMMANDS) gives the file its -I, -D, -std, CUDA options and targets, as
compdb.py reads any database. cmake is the `cmake` wheel's, else the one on PATH (find_cmake
says why); nvcc is the pip wheel's (CMAKE_CUDA_COMPILER), and the wheel's versioned libraries
are named to CMake's FindCUDAToolkit, which looks only for unversioned ones (`libcudart.so`) and
would refuse the project. CMAKE_CUDA_ARCHITECTURES=OFF lets a project that names its targets
keep them and one that does not get sassview's default instead of CMake's (5.2 or 7.5).

The result is keyed by the contents of every CMakeLists.txt and *.cmake under the project's
root, cmake's and nvcc's paths: an edit to them configures again, an edit to a source does not.
The build tree stays (a header a configure generates, config.h, is included from it); the
response files CMake writes for include directories (`--options-file ...rsp`) are read into the
database's arguments, which compdb.py then reads as any other.

How it can be wrong: the root is the outermost directory with a CMakeLists.txt that calls
project(), below the repository's top (the directory holding .git); a project whose files lie
outside it, or whose configure reads something else (an environment variable, a file it
generates, CMakePresets.json) is keyed without it. A project's options (`option(USE_X ...)`)
take their defaults. A configure that fails is not remembered: it runs again next time.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from sassview.errors import InputError, ToolchainError, ToolFailed

PROJECT_FILE = "CMakeLists.txt"
CMAKE_ENV = "SASSVIEW_CMAKE"
DATABASE = "compile_commands.json"
SAVED = "sassview-compile_commands.json"  # CMake's, with its response files read in
_PROJECT_CALL = re.compile(rb"^\s*project\s*\(", re.I | re.M)
# Directories never holding the project's own CMake files: a build tree (it has a
# CMakeCache.txt) is skipped too, so configuring it does not change the key.
_SKIPPED = {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv"}
_MAX_KEYED_FILES = 5000
_ERROR_AT = re.compile(r"^CMake Error at (\S+:\d+) \([^)]*\):\s*$")  # "CMakeLists.txt:3 (message):"
_CONFIGURE_TIMEOUT_S = 300.0  # compiler detection builds two test programs; slow disks take long
log = logging.getLogger("sassview")


@dataclass(frozen=True, slots=True)
class Configured:
    """The database sassview's configure of `root` wrote, and how it was made."""

    root: Path
    database: Path
    cmake: str  # the executable, and where it came from ("PATH", "the cmake wheel")
    reused: bool  # configured by an earlier run (same CMake files)
    warnings: tuple[str, ...] = ()  # CMake errors the configure went past (a generate step)


def find_project(source: Path) -> Path | None:
    """The root of the CMake project `source` lies in, or None: the outermost directory above
    it whose CMakeLists.txt calls project(), stopping at the repository's top."""
    root = None
    for parent in source.resolve().parents:
        listed = parent / PROJECT_FILE
        try:
            if listed.is_file() and _PROJECT_CALL.search(listed.read_bytes()):
                root = parent
        except OSError:
            pass
        if (parent / ".git").exists() or parent == Path.home():
            break
    return root


def find_cmake() -> tuple[str, str] | None:
    """(cmake's path, where it came from): $SASSVIEW_CMAKE, else the `cmake` wheel, else PATH;
    None if none. The wheel before PATH: sassview configures with the pip nvcc, which an older
    system cmake may not know (3.25 knows no C++20 feature of nvcc 13: the configure fails)."""
    chosen = os.environ.get(CMAKE_ENV, "").strip()
    if chosen:
        path = shutil.which(chosen)
        if path is None:
            raise ToolchainError(f"{CMAKE_ENV}={chosen}: no such program", f"unset {CMAKE_ENV}")
        return path, CMAKE_ENV
    wheel = _wheel_cmake()
    if wheel is not None:
        return str(wheel), "the cmake wheel"
    on_path = shutil.which("cmake")
    return (on_path, "PATH") if on_path else None


def _wheel_cmake() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("cmake")  # not imported: its path is all that is needed
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "data" / "bin" / "cmake"
    return binary if binary.is_file() else None


def configured_database(root: Path) -> Configured:
    """`root` configured once per contents of its CMake files; the database CMake wrote."""
    from sassview import cache
    from sassview.cache.locks import claim, release
    from sassview.toolchain.locate import host_compiler, nvcc_info

    found = find_cmake()
    if found is None:
        raise ToolchainError(
            f"{root} is a CMake project, and no cmake was found to read its flags",
            "pip install cmake (or put cmake on PATH), give the flags with -I/-D/-X, or pass "
            "--no-compile-commands",
        )
    cmake, via = found
    nvcc = nvcc_info()
    host = host_compiler(None)
    key = cache.make_key(
        {
            "frontend": "cmake-configure",
            "root": str(root),
            "files": _cmake_files(root),
            "cmake": [cmake, *_stamp(cmake)],
            "nvcc": [nvcc.path, nvcc.version],
            "host": host.path if host else None,
        }
    )
    place = cache.scratch_dir("cmake") / key
    database = place / SAVED
    if not database.is_file():
        locked = claim("cmake", key)  # pytest-xdist workers: one configures
        try:
            if not database.is_file():
                warnings = _configure(
                    root, place, cmake, str(nvcc.path), host.path if host else None
                )
                return Configured(root, database, f"{cmake} ({via})", False, warnings)
        finally:
            if locked:
                release("cmake", key)
    log.info("cmake: %s configured before (same CMake files): %s", root, place)
    return Configured(root, database, f"{cmake} ({via})", True)


def _stamp(path: str) -> tuple[int, int]:
    """The executable's size and time: a cmake upgraded in place configures again."""
    try:
        st = os.stat(path)
    except OSError:
        return (0, 0)
    return (st.st_size, st.st_mtime_ns)


def _cmake_files(root: Path) -> dict[str, str]:
    """Each CMakeLists.txt and *.cmake under `root` (not in a build tree) -> its digest."""
    from sassview import cache

    files: dict[str, str] = {}
    for here, dirs, names in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in _SKIPPED and not (Path(here) / d / "CMakeCache.txt").exists()
        )
        for name in sorted(names):
            if name == PROJECT_FILE or name.endswith(".cmake") or name == "CMakePresets.json":
                path = Path(here) / name
                try:
                    files[str(path.relative_to(root))] = cache.digest(path.read_bytes())
                except OSError:
                    continue
                if len(files) >= _MAX_KEYED_FILES:
                    return files
    return files


def _configure(root: Path, place: Path, cmake: str, nvcc: str, host: str | None) -> tuple[str, ...]:
    """Run cmake's configure with `place` as the build tree (it stays: the headers a configure
    generates, config.h, are included from it); leave the database read into SAVED there."""
    from sassview.toolchain.run import TIMEOUT_ENV, run_tool, seconds_from_env

    place.mkdir(parents=True, exist_ok=True)
    argv = [cmake, "-S", str(root), "-B", str(place), *_definitions(nvcc, host)]
    log.info("cmake: configuring %s into %s (only configure: nothing is built)", root, place)
    timeout = seconds_from_env(TIMEOUT_ENV) or _CONFIGURE_TIMEOUT_S
    try:
        run_tool(argv, what="cmake", timeout=timeout)
        warnings: tuple[str, ...] = ()
    except ToolFailed as exc:
        if not (place / DATABASE).is_file():  # configure itself failed: nothing to read
            raise _configure_error(root, exc) from None
        warnings = (_cmake_error_text(exc.output),)  # the generate step failed only
    _save_database(place)
    return warnings


def _definitions(nvcc: str, host: str | None) -> list[str]:
    """The cache entries sassview's configure sets (see the module's docstring for why)."""
    defs = [
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
        f"-DCMAKE_CUDA_COMPILER={nvcc}",
        "-DCMAKE_CUDA_ARCHITECTURES=OFF",
        "-DCMAKE_POLICY_VERSION_MINIMUM=3.5",  # cmake 4 refuses projects written for < 3.5
        "-DCMAKE_BUILD_TYPE=Release",
    ]
    if host:
        defs.append(f"-DCMAKE_CUDA_HOST_COMPILER={host}")
    libdir = Path(nvcc).resolve().parent.parent / "lib"
    for library in sorted(libdir.glob("lib*.so.*")) if libdir.is_dir() else ():
        name = library.name[3:].split(".so", 1)[0]
        defs.append(f"-DCUDA_{name}_LIBRARY={library}")
        if name == "cudart":
            defs.append(f"-DCUDA_CUDART={library}")
    return defs


def _save_database(place: Path) -> None:
    """CMake's compile_commands.json in `place`, each command as an argument list with its
    response files read in, written atomically as SAVED (whose presence says: configured)."""
    try:
        entries = json.loads((place / DATABASE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cmake wrote no readable {DATABASE} ({exc})", "") from None
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict):
            continue
        directory = Path(str(entry.get("directory", place)))
        argv = entry.get("arguments")
        if not isinstance(argv, list):
            argv = shlex.split(str(entry.pop("command", "")))
        entry["arguments"] = expand_options_files([str(a) for a in argv], directory)
    tmp = place / f"{SAVED}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(entries, indent=1), encoding="utf-8")
    os.replace(tmp, place / SAVED)


def expand_options_files(argv: list[str], directory: Path) -> list[str]:
    """`argv` with each `--options-file FILE` (nvcc's response file, which CMake writes for
    include directories) replaced by the arguments in FILE; one that cannot be read is kept."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("--options-file", "-optf") and i + 1 < len(argv):
            try:
                text = (directory / argv[i + 1]).read_text(encoding="utf-8", errors="replace")
                out += shlex.split(text)
                i += 2
                continue
            except (OSError, ValueError):
                pass
        out.append(arg)
        i += 1
    return out


def _configure_error(root: Path, failed: ToolFailed) -> InputError:
    said = _cmake_error_text(failed.output)
    return InputError(
        f"cmake could not configure {root}: {said}",
        "fix what CMake says, or configure it yourself (cmake -B build "
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON) and pass -p build, or give the flags with "
        "-I/-D/-X and --no-compile-commands",
        detail=failed.detail,
    )


def _cmake_error_text(output: str) -> str:
    """CMake's own words: the first `CMake Error` and the indented lines under it."""
    lines = output.splitlines()
    start = next((i for i, s in enumerate(lines) if s.startswith("CMake Error")), None)
    if start is None:
        return next((s.strip() for s in reversed(lines) if s.strip()), "no reason given")
    head = _ERROR_AT.match(lines[start])
    said = [f"{head.group(1)}: " if head else lines[start].rstrip(":").strip()]
    for line in lines[start + 1 :]:
        if line and not line.startswith(" "):
            break
        if line.strip() and not line.startswith("Call Stack"):
            said.append(line.strip())
    return (said[0] + " ".join(said[1:])).strip()


def project_database(source: Path) -> tuple[Path | None, tuple[str, ...]]:
    """For a file with no compile_commands.json: the one sassview's configure of its CMake
    project wrote (None when it is in none), and the notes that say so. No cmake at all is a
    note, not an error: the file may compile without its project's flags."""
    root = find_project(source)
    if root is None:
        return None, ()
    if find_cmake() is None:
        return None, (
            f"note: {root} is a CMake project, but no cmake was found to read its flags "
            "(pip install cmake, or give them with -I/-D/-X)",
        )
    done = configured_database(root)
    how = "configured before" if done.reused else "configured now, nothing built"
    notes = [f"note: build flags from the CMake project {root} ({how}; cmake: {done.cmake})"]
    notes += [f"  cmake reported, and went on: {w}" for w in done.warnings]
    return done.database, tuple(notes)
