"""A failed CUDA C++ compile as one CompileError: the user's `file:line`, the compiler's words,
and a hint for what a file checked outside its build usually lacks.

The compiler's own advice comes first ("The experimental flag '--expt-relaxed-constexpr' can be
used"): an AdvisedError carries the option, which compile_cuda tries once before it says so.
The log kept as the error's detail is cut to the first error and its context (with -v, whole).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from sassview.errors import CompileError
from sassview.frontends.cuda_source import INSTANTIATE_FILE
from sassview.frontends.diagnose import (
    arch_hint,
    compiler_advice,
    error_count,
    first_error,
    trimmed_log,
)
from sassview.frontends.libheaders import missing_library_hint

_NOT_IN_PROJECT = (
    "add the directory that holds it with -I DIR, or let the project's "
    "compile_commands.json give the flags (-p BUILD_DIR)"
)


class AdvisedError(CompileError):
    """A compile an option may fix, which the compiler named (or the -I of a header the project
    has); `advice` is that option, the hint says so, and compile_cuda tries it."""

    def __init__(self, message: str, hint: str, *, detail: str, advice: str) -> None:
        super().__init__(message, hint, detail=detail)
        self.advice = advice


def _error(
    message: str, hint: str, log: str, options: Sequence[str], where: str = ""
) -> CompileError:
    """The error, with the log cut unless -v; an AdvisedError when the compiler names an
    option the compile did not have, or the project has the header it could not open.
    No hint where there is none to give: the message and the source line are the news (a
    "read the log above" said nothing the log did not)."""
    verbose = logging.getLogger("sassview").isEnabledFor(logging.INFO)
    detail = log if verbose else _unrepeated(trimmed_log(log), where)
    advice = compiler_advice(log)
    if advice and advice not in options:
        said = f"the compiler's advice: {advice} allows this; add -X={advice}"
        return AdvisedError(message, said, detail=detail, advice=advice)
    found = _header_in_project(log)  # the project's own copy first, even of a library's
    if found is not None and found[0] not in options:
        return AdvisedError(message, found[1], detail=detail, advice=found[0])
    return CompileError(message, hint, detail=detail)


def _unrepeated(log: str, where: str) -> str:
    """The log without what the message already says: the first error's own line (the message
    names its `file:line` and words; its source line and caret stay) and the closing count
    ("1 error detected in the compilation of ...": the message says how many more)."""
    lines = log.splitlines()
    first = next((i for i, line in enumerate(lines) if where and first_error(line) == where), None)
    if first is not None:
        del lines[first]
    kept = [line for line in lines if not _COUNT_LINE.search(line)]
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept)


_COUNT_LINE = re.compile(r"^\d+ errors? detected in the compilation of ")


def _header_in_project(log: str) -> tuple[str, str] | None:
    """(-IDIR, the words) for a header the compile could not open that the project has."""
    from sassview.frontends.missing_header import include_dir_for, missing_header

    missing = missing_header(log)
    found = include_dir_for(missing) if missing else None
    if missing is None or found is None:
        return None
    where, others = found
    said = f"{missing.header} is in {where}: add -I {where}"
    if others:
        said += f" (the project has one in {', '.join(map(str, others[:3]))} as well)"
    return f"-I{where}", said


_HEADER_SUFFIXES = (".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl")


def nvrtc_compile_error(
    log: str,
    arch: str,
    instantiate: Sequence[str],
    host_reason: str = "",
    includer: Callable[[], str] = str,
    options: Sequence[str] = (),
) -> CompileError:
    """NVRTC's failure; `host_reason` when the file needs nvcc and NVRTC was forced;
    `includer` words the --included-by a header failing on undefined names could take;
    `options` the compile's (an option the compiler advises and it had is no advice)."""
    where = first_error(log)
    count = error_count(log)
    hint = arch_hint(log, arch) or _source_hint(log, where, instantiate, includer)
    if host_reason:
        hint = f"this file needs nvcc ({host_reason}): use --compiler nvcc or auto"
    if where:
        more = count - 1
        message = f"compile failed: {where}" + (
            f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
        )
        return _error(message, hint, log, options, where)
    return _error("compile failed", hint, log, options)


def nvcc_compile_error(
    log: str,
    arch: str,
    instantiate: Sequence[str],
    includer: Callable[[], str] = str,
    options: Sequence[str] = (),
) -> CompileError:
    from sassview.frontends.nvcc import nvcc_error

    where, hint = nvcc_error(log)
    return _error(
        f"compile failed (nvcc): {where}" if where else "compile failed (nvcc)",
        arch_hint(log, arch) or _source_hint(log, where, instantiate, includer) or hint,
        log,
        options,
        where,
    )


def _source_hint(
    log: str, where: str, instantiate: Sequence[str], includer: Callable[[], str]
) -> str:
    return (
        _instantiate_hint(where, instantiate)
        or _torch_hint(log)
        or missing_library_hint(log)
        or _context_hint(where, includer)
    )


def _torch_hint(log: str) -> str:
    from sassview.frontends.missing_header import TORCH_HINT, is_torch, missing_header

    missing = missing_header(log)
    return TORCH_HINT if missing is not None and is_torch(missing.header) else ""


def _context_hint(where: str, includer: Callable[[], str] = str) -> str:
    """What a file checked outside its build lacks: an -I directory, or what its includer
    defines (a header fails on its own with "undefined")."""
    if "cannot open source file" in where or "No such file or directory" in where:
        return _NOT_IN_PROJECT
    path = where.rsplit(":", 2)[0] if where.count(":") >= 2 else ""
    if path.endswith(_HEADER_SUFFIXES) and " is undefined" in where:
        return includer() or (
            "a header may rely on what the file including it defines: check it as that file "
            "includes it with --included-by FILE, or give the definitions with "
            "--include-before FILE or -D NAME=VALUE"
        )
    return ""


def _instantiate_hint(where: str, instantiate: Sequence[str]) -> str:
    if not where.startswith(INSTANTIATE_FILE):
        return ""
    listed = ", ".join(f"'{e}'" for e in instantiate)
    return (
        f"check --instantiate {listed}: a kernel template's name with a value for every "
        "template parameter the arguments do not deduce"
    )
