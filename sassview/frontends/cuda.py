"""CUDA C++ through NVRTC: source (a file or a string) -> PTX, cubin and the ptxas report.

Compiled with -lineinfo (so SASS maps back to source lines) and --ptxas-options=-v (the report is
the only place spill byte counts appear). The program is named by the source's absolute path so
the line tables point at the user's file. NVRTC's bundled headers (cuda_fp16.h, cuda/std, ...)
are unpacked once under the cache directory.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType

from sassview import cache
from sassview.errors import CompileError, InputError
from sassview.frontends.arch import parse_arch
from sassview.frontends.diagnose import arch_hint, error_count, first_error
from sassview.frontends.includes import local_includes
from sassview.frontends.nvrtc_api import nvrtc_compile
from sassview.ir import Artifacts
from sassview.toolchain.locate import toolchain_versions

STRING_SOURCE_NAME = "kernel.cu"
log = logging.getLogger("sassview")


def read_source(path: str | Path) -> bytes:
    p = Path(path)
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{p}: no such file", "check the path") from None
    except IsADirectoryError:
        raise InputError(f"{p} is a directory", "point at a .cu, .ptx or .cubin file") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read it ({exc.strerror})", "check its permissions") from None


def compile_options(
    arch: str, defines: Sequence[str], include_dirs: Sequence[str | Path], extra: Sequence[str]
) -> list[str]:
    headers = cache.scratch_dir("nvrtc-headers")
    options = [
        f"--gpu-architecture={arch}",
        "-lineinfo",
        "--ptxas-options=-v",
        f"--use-bundled-headers={headers}",
    ]
    options += [f"-D{d}" for d in defines]
    options += [f"-I{Path(i).resolve()}" for i in include_dirs]
    options += list(extra)
    return options


def compile_cuda(
    source: str | bytes | None = None,
    *,
    path: str | Path | None = None,
    arch: str = "sm_90a",
    defines: Sequence[str] = (),
    include_dirs: Sequence[str | Path] = (),
    options: Sequence[str] = (),
) -> Artifacts:
    """Compile CUDA C++ for one architecture; cached by content, options, arch and tool versions."""
    if source is None and path is None:
        raise InputError("nothing to compile", "pass CUDA C++ source text or a path")
    arch_name = str(parse_arch(arch))
    src_path = Path(path).resolve() if path is not None else None
    data = read_source(src_path) if source is None and src_path else _as_bytes(source)
    if not data.strip():
        raise InputError(
            f"{src_path or 'the source'} is empty", "give it at least one __global__ kernel"
        )
    name = str(src_path) if src_path else STRING_SOURCE_NAME
    opts = compile_options(arch_name, defines, include_dirs, options)
    includes = local_includes(
        data, src_path.parent if src_path else None, [Path(i) for i in include_dirs]
    )
    versions = toolchain_versions()
    key = cache.make_key(
        {
            "frontend": "cuda",
            "name": name,
            "source": cache.digest(data),
            "includes": {p: cache.digest(b) for p, b in sorted(includes.items())},
            # The headers directory lives in the cache: leave its path out of the key.
            "options": [o for o in opts if not o.startswith("--use-bundled-headers")],
            "arch": arch_name,
            "tools": versions,
        }
    )
    store = cache.Store("cuda")
    entry = store.get(key)
    if entry is None:
        started = time.perf_counter()
        out = nvrtc_compile(data, name, opts)
        log.info(
            "nvrtc: compiled %s for %s in %.2f s", name, arch_name, time.perf_counter() - started
        )
        if not out.ok:
            raise _compile_error(out.log, arch_name)
        entry = store.put(
            key, {"kernel.ptx": out.ptx, "kernel.cubin": out.cubin, "compile.log": out.log}
        )
        if entry is None:  # caching off or unwritable: use the fresh results directly
            return _artifacts(
                data, name, src_path, arch_name, opts, versions, out.ptx, out.cubin, out.log
            )
    else:
        log.info("nvrtc: cache hit for %s (%s)", name, arch_name)
    return _artifacts(
        data,
        name,
        src_path,
        arch_name,
        opts,
        versions,
        entry.read_text("kernel.ptx"),
        entry.read_bytes("kernel.cubin"),
        entry.read_text("compile.log"),
    )


def _as_bytes(source: str | bytes | None) -> bytes:
    if isinstance(source, bytes):
        return source
    return (source or "").encode()


def _artifacts(
    data: bytes,
    name: str,
    src_path: Path | None,
    arch: str,
    opts: list[str],
    versions: dict[str, str],
    ptx: str,
    cubin: bytes,
    log: str,
) -> Artifacts:
    return Artifacts(
        kind="cuda",
        arch=arch,
        source_path=name if src_path else None,
        source_text=data.decode(errors="replace"),
        ptx=ptx,
        cubin=cubin,
        compile_log=log,
        options=tuple(o for o in opts if not o.startswith("--use-bundled-headers")),
        toolchain=MappingProxyType(dict(versions)),
    )


def _compile_error(log: str, arch: str) -> CompileError:
    where = first_error(log)
    count = error_count(log)
    hint = arch_hint(log, arch)
    if where:
        message = f"compile failed: {where}" + (
            f" (and {count - 1} more errors)" if count > 1 else ""
        )
        return CompileError(message, hint or "fix the error at that line", detail=log)
    return CompileError("compile failed", hint or "read the compiler's log above", detail=log)
