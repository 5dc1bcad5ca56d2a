"""A failed CUDA C++ compile as one CompileError: the user's `file:line`, the compiler's words,
and a hint for what a file checked outside its build usually lacks."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sassview.errors import CompileError
from sassview.frontends.cuda_source import INSTANTIATE_FILE
from sassview.frontends.diagnose import arch_hint, error_count, first_error
from sassview.frontends.libheaders import missing_library_hint

_HEADER_SUFFIXES = (".cuh", ".h", ".hpp", ".hh", ".hxx", ".inl")


def nvrtc_compile_error(
    log: str,
    arch: str,
    instantiate: Sequence[str],
    host_reason: str = "",
    includer: Callable[[], str] = str,
) -> CompileError:
    """NVRTC's failure; `host_reason` when the file needs nvcc and NVRTC was forced;
    `includer` words the --included-by a header failing on undefined names could take."""
    where = first_error(log)
    count = error_count(log)
    hint = arch_hint(log, arch) or _source_hint(log, where, instantiate, includer)
    if host_reason:
        hint = f"this file needs nvcc ({host_reason}): use --compiler nvcc or auto"
    if where:
        message = f"compile failed: {where}" + (
            f" (and {count - 1} more errors)" if count > 1 else ""
        )
        return CompileError(message, hint or "fix the error at that line", detail=log)
    return CompileError("compile failed", hint or "read the compiler's log above", detail=log)


def nvcc_compile_error(
    log: str, arch: str, instantiate: Sequence[str], includer: Callable[[], str] = str
) -> CompileError:
    from sassview.frontends.nvcc import nvcc_error

    where, hint = nvcc_error(log)
    return CompileError(
        f"compile failed (nvcc): {where}" if where else "compile failed (nvcc)",
        arch_hint(log, arch) or _source_hint(log, where, instantiate, includer) or hint,
        detail=log,
    )


def _source_hint(
    log: str, where: str, instantiate: Sequence[str], includer: Callable[[], str]
) -> str:
    return (
        _instantiate_hint(where, instantiate)
        or missing_library_hint(log)
        or _context_hint(where, includer)
    )


def _context_hint(where: str, includer: Callable[[], str] = str) -> str:
    """What a file checked outside its build lacks: an -I directory, or what its includer
    defines (a header fails on its own with "undefined")."""
    if "cannot open source file" in where or "No such file or directory" in where:
        return (
            "add the directory that holds it with -I DIR, or let the project's "
            "compile_commands.json give the flags (-p BUILD_DIR)"
        )
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
