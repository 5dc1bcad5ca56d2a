"""CUDA C++ -> PTX, cubin and the ptxas report, through NVRTC or nvcc.

`compiler="auto"` (the default) compiles with NVRTC, in-process and with no host compiler, and
moves to nvcc (frontends/nvcc.py) when NVRTC refuses the file for what only nvcc can do: host
code or host headers (see cuda_source.host_refusal). That choice is cached with the NVRTC key,
so a warm check of a whole program runs no compiler at all. `"nvrtc"` and `"nvcc"` force one.

NVRTC: -lineinfo (SASS maps back to source lines) and --ptxas-options=-v (the only place spill
byte counts appear); the program is named by the source's absolute path so the line tables point
at the user's file; NVRTC's bundled headers are unpacked once under the cache directory; the
cache key covers the local files includes.py finds (a superset). nvcc: the files its device-side
preprocessing read (nvcc.py) key the cache (depcache.py), with nvcc's and the host compiler's
versions.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from sassview import cache
from sassview.cache.get_or_build import Said, keep, lookup, text_of
from sassview.errors import CompileError, InputError, SassviewError, ToolchainError
from sassview.frontends import depcache
from sassview.frontends.arch import DEFAULT_ARCH, parse_arch
from sassview.frontends.build_options import AS_GIVEN, COMPILERS, BuildOptions
from sassview.frontends.cuda_source import refuse_compiled
from sassview.frontends.includes import IncludeScan, local_includes, unlisted_files
from sassview.frontends.libheaders import library_include_dirs
from sassview.ir import Artifacts
from sassview.toolchain.locate import (
    host_compiler,
    nvcc_info,
    toolchain_identity,
    toolchain_versions,
)

if TYPE_CHECKING:
    from sassview.frontends.nvrtc_api import NvrtcOutput
    from sassview.toolchain.store import Toolchain

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


@dataclass(frozen=True, slots=True)
class CudaRequest:
    """One translation unit to compile for one architecture, whichever compiler does it."""

    data: bytes
    name: str  # the absolute path, or STRING_SOURCE_NAME for text
    path: Path | None
    arch: str
    defines: tuple[str, ...]
    include_dirs: tuple[Path, ...]
    options: tuple[str, ...]
    include_before: tuple[Path, ...]
    instantiate: tuple[str, ...]
    host_compiler: str | None
    toolchain: Toolchain | None = None  # a stored release (toolchain/store.py); None: default
    kernels_in: tuple[str, ...] = ()  # only these files' kernels are the program's

    @property
    def appendix(self) -> str:
        if not self.instantiate:
            return ""
        from sassview.frontends.cuda_source import instantiation_source

        return instantiation_source(self.instantiate)


def compile_cuda(
    source: str | bytes | None = None,
    *,
    path: str | Path | None = None,
    arch: str = DEFAULT_ARCH,
    build: BuildOptions = AS_GIVEN,
) -> Artifacts:
    """Compile CUDA C++ for one architecture; cached by everything that went in. `build` is
    taken as it is: its compile_commands.json and includer are resolve_build's, which the
    API runs first (`build.toolchain`: a release added with `sassview toolchain add`, compiled
    by its NVRTC; `build.kernels_in`: the files whose kernels are the program's)."""
    if source is None and path is None:
        raise InputError("nothing to compile", "pass CUDA C++ source text or a path")
    compiler = build.compiler
    if compiler not in COMPILERS:
        raise InputError(f"unknown compiler {compiler!r}", f"use one of {', '.join(COMPILERS)}")
    src_path = Path(path).resolve() if path is not None else None
    data = read_source(src_path) if source is None and src_path else _as_bytes(source)
    # A UTF-8 byte order mark (an editor's, on Windows) is no token: gcc and nvcc skip it,
    # NVRTC refuses it ("unrecognized token" at 1:1). Read the file as the compilers do.
    data = data.removeprefix(b"\xef\xbb\xbf")
    if not data.strip():
        raise InputError(
            f"{src_path or 'the source'} is empty", "give it at least one __global__ kernel"
        )
    refuse_compiled(data, str(src_path or "the source"))
    for pre in build.include_before:
        if not Path(pre).is_file():
            raise InputError(f"--include-before {pre}: no such file", "check the path")
    request = CudaRequest(
        data,
        str(src_path) if src_path else STRING_SOURCE_NAME,
        src_path,
        str(parse_arch(arch)),
        build.defines,
        _with_library_headers(
            data, src_path, build.include_dirs, build.defines, build.include_before
        ),
        build.options,
        tuple(Path(p).resolve() for p in build.include_before),
        build.instantiate,
        build.host_compiler,
        _stored_toolchain(build.toolchain),
        tuple(str(Path(p).resolve()) for p in build.kernels_in),
    )
    if request.toolchain is not None and compiler == "nvcc":
        raise _no_stored_nvcc(request, "--compiler nvcc")
    try:
        return _compile(request, compiler)
    except CompileError as exc:
        advice = getattr(exc, "advice", "")  # cuda_errors.AdvisedError: not imported warm
        if not advice:
            raise
        raise _advice_tried(request, compiler, exc, advice) from None


def _compile(request: CudaRequest, compiler: str) -> Artifacts:
    if compiler == "nvcc":
        return _via_nvcc(request, "--compiler nvcc")
    return _via_nvrtc(request, fall_back=compiler == "auto")


def _advice_tried(
    request: CudaRequest, compiler: str, refused: CompileError, advice: str
) -> CompileError:
    """An option may fix the compile (the compiler named it, or it is the -I of a header the
    project has): compile once more with it, so the hint says what it does (a hint is never a
    fix nobody tried). A success is cached: the user's next run with the option finds it."""
    if advice.startswith("-I"):
        extra = Path(advice[2:])
        with_it = dataclasses.replace(request, include_dirs=(*request.include_dirs, extra))
    else:
        with_it = dataclasses.replace(request, options=(*request.options, advice))
    try:
        _compile(with_it, compiler)
    except SassviewError as next_error:
        said = next_error.message.removeprefix("compile failed: ")
        hint = f"{refused.hint} (tried: with it, the next error is {said})"
    else:
        hint = f"{refused.hint} (tried: it compiles)"
    return CompileError(refused.message, hint, detail=refused.detail)


def _with_library_headers(
    data: bytes,
    path: Path | None,
    include_dirs: Sequence[str | Path],
    defines: Sequence[str],
    include_before: Sequence[str | Path],
) -> tuple[Path, ...]:
    """The -I list, with the include directory of each library wheel the sources include."""
    dirs = tuple(Path(i) for i in include_dirs)
    scan = local_includes(
        data,
        path.parent if path else None,
        dirs,
        defines=defines,
        pre_includes=[Path(p) for p in include_before],
    )
    return dirs + tuple(library_include_dirs([data, *scan.present().values()]))


def _stored_toolchain(name: str | None) -> Toolchain | None:
    """The stored release `name` names; None for the default (also when `name` is the
    default's own release and no other copy of it was added)."""
    if name is None or name == "default":
        return None
    from sassview.toolchain import store

    release = store.parse_release(name)
    default = toolchain_versions().get("nvrtc", "")
    if release == default and not (store.store_root() / release).exists():
        return None
    return store.find(release)


def _no_stored_nvcc(req: CudaRequest, reason: str) -> ToolchainError:
    assert req.toolchain is not None
    return ToolchainError(
        f"{req.name} needs nvcc ({reason}), and a stored toolchain compiles with its NVRTC only "
        f"(toolchain {req.toolchain.release})",
        "compile it with the default toolchain, or make the file device-only for NVRTC",
    )


def _nvrtc_options(req: CudaRequest) -> list[str]:
    """The default NVRTC unpacks its bundled headers into the cache; a stored one is given its
    release's CUDA and CCCL headers with -I (NVRTC before 13 has no bundled-headers option)."""
    if req.toolchain is None:
        opts = compile_options(req.arch, req.defines, req.include_dirs, req.options)
    else:
        opts = [f"--gpu-architecture={req.arch}", "-lineinfo", "--ptxas-options=-v"]
        opts += [f"-D{d}" for d in req.defines]
        opts += [f"-I{Path(i).resolve()}" for i in req.include_dirs]
        opts += [f"-I{i}" for i in req.toolchain.include_dirs] + list(req.options)
    return opts + [f"--pre-include={p}" for p in req.include_before]


def _versions(req: CudaRequest) -> dict[str, str]:
    """The tools that made the artifacts (the cache key's); a stored toolchain by its manifest
    digest, beside the default's nvdisasm that reads every release's cubins."""
    versions = toolchain_versions()
    if req.toolchain is None:
        return versions
    tc = req.toolchain
    nvrtc = tc.version_of("nvidia-cuda-nvrtc") or tc.release
    return {**versions, "nvrtc": nvrtc, "stored": tc.release, "toolchain": tc.key}


def _nvrtc_compile(req: CudaRequest, text: bytes, opts: list[str]) -> NvrtcOutput:
    from sassview.frontends.nvrtc_api import nvrtc_compile

    if req.toolchain is None:
        return nvrtc_compile(text, req.name, opts)
    from sassview.frontends.nvrtc_stored import compile_with

    return compile_with(req.toolchain, text, req.name, opts)


_NVRTC_FILES = ("kernel.ptx", "kernel.cubin", "compile.log")


def _nvrtc_key(
    req: CudaRequest, scan: IncludeScan, opts: Sequence[str], versions: dict[str, str]
) -> str:
    """The cache key of an NVRTC compile: everything that went in, the includes' bytes too."""
    return cache.make_key(
        {
            "frontend": "cuda",
            "name": req.name,
            "source": cache.digest(req.data),
            "includes": {
                p: cache.digest(b) if b is not None else None for p, b in scan.files.items()
            },
            # The headers directory lives in the cache: leave its path out of the key.
            "options": _keyed(opts),
            "instantiate": list(req.instantiate),
            "arch": req.arch,
            "tools": versions,
            "tool_files": toolchain_identity(),  # which files, not only their word
        }
    )


def _via_nvrtc(req: CudaRequest, *, fall_back: bool) -> Artifacts:
    opts = _nvrtc_options(req)
    scan = _local_scan(req)
    versions = _versions(req)
    key = _nvrtc_key(req, scan, opts, versions)
    if not scan.complete:
        log.info("nvrtc: a computed #include could name any file: compiling without the cache")
    routes, store = cache.Store("cuda-route"), cache.Store("cuda")
    if fall_back and scan.complete and (route := routes.get(key)) is not None:
        reason = route.read_text("reason")
        log.info("nvrtc: %s needs nvcc (%s, remembered)", req.name, reason)
        return _via_nvcc(req, reason)
    inputs = (*([req.name] if req.path else []), *scan.present())
    kept = key if scan.complete else None
    said = Said(log, "nvrtc", req.name, req.arch)
    found = lookup(store, kept, _NVRTC_FILES, said)
    if found is not None:
        ptx, cubin, compile_log = found["kernel.ptx"], found["kernel.cubin"], found["compile.log"]
        return _checked(
            req, "nvrtc", opts, versions, inputs, text_of(ptx), cubin, text_of(compile_log)
        )
    started = time.perf_counter()
    text = req.data + b"\n" + req.appendix.encode() if req.appendix else req.data
    # Imported on a miss: a warm run finds the compile cached, and needs neither NVRTC's
    # call (in a child process) nor the error wording (~5 ms of a warm check's imports).
    from sassview.frontends.cuda_errors import nvrtc_compile_error
    from sassview.frontends.cuda_source import host_refusal

    try:
        out = _nvrtc_compile(req, text, opts)
        if not out.ok and _UNPACK_FAILED in out.log:  # a full disk under the cache
            out = _nvrtc_compile(req, text, _headers_moved(opts, out.log))
    except CompileError as exc:  # an option NVRTC does not take may be nvcc's
        if not fall_back or not exc.detail:
            raise
        return _option_for_nvcc(req, exc)
    if not out.ok:
        said._replace(verb="refused").built(started)
        reason = host_refusal(out.log)
        if reason and fall_back:
            log.info("nvrtc: %s needs nvcc (%s)", req.name, reason)
            if scan.complete:
                routes.put(key, {"reason": reason})
            return _via_nvcc(req, reason)
        raise nvrtc_compile_error(
            out.log, req.arch, req.instantiate, reason, lambda: _includer_hint(req), opts
        )
    said.built(started)  # before keep: the scan's word on what it missed follows it
    held = kept is not None and _scan_held(req, scan, out)
    files: dict[str, bytes | str] = {
        "kernel.ptx": out.ptx,
        "kernel.cubin": out.cubin,
        "compile.log": out.log,
    }
    keep(store, kept if held else None, files)
    return _checked(req, "nvrtc", opts, versions, inputs, out.ptx, out.cubin, out.log)


def _option_for_nvcc(req: CudaRequest, refused: CompileError) -> Artifacts:
    """NVRTC refused an option: nvcc takes more (-allow-unsupported-compiler, -Xcompiler)."""
    said = refused.detail.strip().splitlines()[-1].replace("nvrtc: error: ", "")
    try:
        return _via_nvcc(req, f"an option NVRTC does not take: {said}")
    except CompileError as exc:
        if "Unknown option" not in exc.message:
            raise
        raise CompileError(
            f"NVRTC rejected an option, and so does {exc.message.split(': ', 1)[-1]}",
            refused.hint,
            detail=f"{refused.detail.strip()}\n{exc.detail.strip()}",
        ) from None


def _via_nvcc(req: CudaRequest, reason: str) -> Artifacts:
    """Compile with nvcc; `reason` says why nvcc (for the message when it cannot run)."""
    if req.toolchain is not None:
        raise _no_stored_nvcc(req, reason)
    from sassview.frontends.nvcc import nvcc_compile, nvcc_options
    from sassview.toolchain.identity import tool_identity

    host = host_compiler(req.host_compiler)
    if host is None:
        raise ToolchainError(
            f"{req.name} needs nvcc ({reason}), and nvcc needs a host C++ compiler: "
            "none was found (g++ or clang++ on PATH)",
            "install g++ or clang++, or point sassview at one with --host-compiler PATH "
            "(or SASSVIEW_HOST_COMPILER=PATH)",
        )
    try:
        nvcc = nvcc_info()
    except ToolchainError as exc:
        raise ToolchainError(f"{req.name} needs nvcc ({reason}): {exc.message}", exc.hint) from None
    opts = nvcc_options(req.defines, req.include_dirs, req.include_before, req.options)
    versions = {**toolchain_versions(), "nvcc": nvcc.version or "unknown", "host": host.version}
    base = cache.make_key(
        {
            "frontend": "cuda-nvcc",
            "name": req.name,
            "source": cache.digest(req.data),
            "options": opts,
            "instantiate": list(req.instantiate),
            "arch": req.arch,
            "tools": versions,
            "tool_files": {**toolchain_identity(), "nvcc": tool_identity(nvcc.path)},
            "host_path": host.path,
        }
    )
    results, lists = cache.Store("cuda-nvcc"), cache.Store("cuda-nvcc-deps")
    found = depcache.lookup(base, results, lists)
    shown = ("-cubin", f"-arch={req.arch}", "-lineinfo", "-Xptxas", "-v", *opts)
    said = Said(log, "nvcc", req.name, req.arch)
    if found.entry is not None:
        said.hit()
        e = found.entry
        return _checked(
            req,
            "nvcc",
            shown,
            versions,
            found.deps,
            e.read_text("kernel.ptx"),
            e.read_bytes("kernel.cubin"),
            e.read_text("compile.log"),
            reason,
            host.path,
        )
    started = time.perf_counter()
    out = nvcc_compile(req.data, req.path, req.arch, opts, host, appendix=req.appendix)
    said.built(started)
    if not out.ok:
        from sassview.frontends.cuda_errors import nvcc_compile_error

        raise nvcc_compile_error(
            out.log, req.arch, req.instantiate, lambda: _includer_hint(req), opts
        )
    key = depcache.record(base, found, out.deps, lists, _probed(req))  # known only now
    keep(results, key, {"kernel.ptx": out.ptx, "kernel.cubin": out.cubin, "compile.log": out.log})
    return _checked(
        req, "nvcc", shown, versions, out.deps, out.ptx, out.cubin, out.log, reason, host.path
    )


def _scan_held(req: CudaRequest, scan: IncludeScan, out: NvrtcOutput) -> bool:
    """Did the include scan list every file the PTX's line table names? If not, it was fooled
    (includes.py says how it can be), and the result is not cached: its key would not see an
    edit of the file it missed."""
    headers = str(cache.scratch_dir("nvrtc-headers"))
    missed = unlisted_files(out.ptx, scan, req.name if req.path else None, headers, req.data)
    if missed:
        log.info("nvrtc: the include scan missed %s; not caching %s", ", ".join(missed), req.name)
        cache.release_claim()
    return not missed


def _local_scan(req: CudaRequest) -> IncludeScan:
    """Every local file the request's includes could name, present or absent (includes.py)."""
    return local_includes(
        req.data,
        req.path.parent if req.path else None,
        req.include_dirs,
        defines=req.defines,
        pre_includes=req.include_before,
    )


def _probed(req: CudaRequest) -> list[str]:
    """Every local place an include of the compile could resolve (NVRTC's scan): nvcc lists
    only the files it read, and a header created later in front of one of them on the search
    path must change the key too."""
    return list(_local_scan(req).files)


def _includer_hint(req: CudaRequest) -> str:
    """For a header failing on names it does not define: the file beside it that includes it,
    and the option that checks the header in that file's context."""
    from sassview.frontends.includer import find_includer, include_line

    if req.path is None or req.include_before:
        return ""
    found = find_includer(req.path, req.include_dirs)
    if found is None:
        return ""
    line = include_line(found, req.path, req.include_dirs)
    return (
        f"{req.path.name} relies on what its includer defines first: {found} includes it at "
        f"line {line}; check it as included there with --included-by {found} (or give the "
        "definitions with --include-before FILE or -D NAME=VALUE)"
    )


_UNPACK_FAILED = "failed to unpack archive"
_HEADERS = "--use-bundled-headers="


def _headers_moved(opts: Sequence[str], log_text: str) -> list[str]:
    """`opts` with NVRTC's headers in a private directory: unpacking them under the cache
    failed (no space left, a disk that refuses), and the compile must not fail for it."""
    why = next((ln for ln in log_text.splitlines() if _UNPACK_FAILED in ln), _UNPACK_FAILED)
    private = cache.move_scratch_aside("nvrtc-headers", why.split(": ", 2)[-1].strip())
    return [f"{_HEADERS}{private}" if o.startswith(_HEADERS) else o for o in opts]


def _keyed(opts: Sequence[str]) -> list[str]:
    return [o for o in opts if not o.startswith("--use-bundled-headers")]


def _as_bytes(source: str | bytes | None) -> bytes:
    if isinstance(source, bytes):
        return source
    return (source or "").encode()


def _checked(
    req: CudaRequest,
    compiler: str,
    opts: Sequence[str],
    versions: dict[str, str],
    inputs: Sequence[str],
    ptx: str,
    cubin: bytes,
    compile_log: str,
    host_reason: str = "",
    host: str = "",
) -> Artifacts:
    """The artifacts of a compile that made at least one kernel; else an input error."""
    if ".entry" not in ptx or (req.kernels_in and not _has_entry_in(ptx, req.kernels_in)):
        from sassview.frontends.cuda_source import no_kernel_error

        raise no_kernel_error(req.name, _texts(req, inputs), host_reason)
    return Artifacts(
        kind="cuda",
        arch=req.arch,
        source_path=req.name if req.path else None,
        source_text=req.data.decode(errors="replace"),
        ptx=ptx,
        cubin=cubin,
        compile_log=compile_log,
        options=tuple(_keyed(opts)),
        toolchain=MappingProxyType(dict(versions)),
        compiler=compiler,
        inputs=tuple(dict.fromkeys(inputs)),
        kernels_in=req.kernels_in,
        appendix=req.appendix,
        host_compiler=host,
    )


_PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"', re.M)
_PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s", re.M)


def _has_entry_in(ptx: str, files: Sequence[str]) -> bool:
    """Whether a kernel of the PTX is defined in one of `files` (its first .loc is there): a
    header compiled in its includer's context may make only the includer's kernels."""
    names = {n: os.path.normpath(f) for n, f in _PTX_FILE.findall(ptx)}
    wanted = {os.path.normpath(f) for f in files}
    for body in ptx.split(".entry")[1:]:
        loc = _PTX_LOC.search(body)
        if loc is None or names.get(loc.group(1)) in wanted:
            return True  # no line to tell: not proven someone else's (build._defined_in too)
    return False


def _texts(req: CudaRequest, inputs: Sequence[str]) -> dict[str, bytes]:
    """The main source and the user's own headers (not the toolkit's nor the system's)."""
    texts = {req.name: req.data}
    for p in inputs:
        if p != req.name and not p.startswith(("/usr/", "/opt/")) and "site-packages" not in p:
            try:
                texts[p] = Path(p).read_bytes()
            except OSError:
                continue
    return texts
