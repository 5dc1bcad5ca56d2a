"""cuTile Python kernels (`cuda-tile`, compiled by `tileiras` from `nvidia-cuda-tileiras`), without
a GPU: `cuda.tile.compilation.export_kernel(kernel, [signature], out, gpu_code=..., output_format=
"cubin")`, the export API cuTile has for ahead-of-time builds.

- The signature is cuTile's own: one `ParameterConstraint` (ArrayConstraint, ScalarConstraint) or
  constant per parameter of the kernel, in a `KernelSignature` with a calling convention.
- `gpu_code` is the bare number, `sm_100`: tileiras 13.5 knows sm_80 to sm_121 (`tileiras
  --help`) and rejects `sm_100a`, yet from sm_90 on writes an arch-specific cubin (sm_90a,
  sm_100a, sm_120a): the arch reported is the cubin's own.
- tileiras writes no PTX file; the PTX it embeds with the line info is kept, less the Tile IR
  it appends there (`binary.elf.without_tile_ir`). Its stages are cuTile's own IR after its
  passes (`cutile_ir`) and the Tile IR it hands tileiras (`tileir`, MLIR text from
  `tileirdisasm`); both come from `cuda.tile._compile.compile_tile`, the function export_kernel
  calls, asked for them. That is a private API: when it changes, the stages are left out and
  the cubin still compiles.
- cuTile keeps its own cubin cache (~/.cache/cutile-python); it is switched off here, since
  sassview's cache sits in front. Compiles are serialized: that switch is process-wide.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from sassview import cache
from sassview.cache.get_or_build import Said, get_or_build
from sassview.errors import CompileError, InputError, ToolchainError
from sassview.frontends.arch import parse_arch
from sassview.ir import Artifacts
from sassview.toolchain.locate import toolchain_identity, toolchain_versions

log = logging.getLogger(__name__)

# tileiras 13.5's --gpu-name values (`tileiras --help`): no sm_75, no sm_101.
TARGETS = (80, 86, 87, 88, 89, 90, 100, 103, 107, 110, 120, 121)
HINTS = ("num_ctas", "occupancy", "opt_level", "num_worker_warps")  # ct.kernel's compiler hints
STAGES = ("cutile_ir", "tileir")
_FILES = ("kernel.cubin", *(f"{s}.txt" for s in STAGES))
_lock = threading.Lock()


def compile_cutile(
    kernel: Any,
    parameters: Sequence[Any],
    *,
    arch: str = "sm_100a",
    hints: Mapping[str, Any] | None = None,
    calling_convention: Any = None,
) -> Artifacts:
    """Compile one `@ct.kernel` for one signature and architecture.

    `parameters`: what cuTile's `KernelSignature` takes, one per parameter of the kernel, in
    order: an `ArrayConstraint`, a `ScalarConstraint`, or a value for a `ct.Constant`
    parameter. `hints`: ct.kernel's compiler hints (num_ctas, occupancy, opt_level,
    num_worker_warps), applied with `kernel.replace_hints`. Cached by the kernel's file, its
    name, the signature, the hints, the arch and the tool versions."""
    ct = _import_cutile()
    from cuda.tile.compilation import CallingConvention, KernelSignature

    if not isinstance(kernel, ct.kernel):
        raise InputError(
            f"{getattr(kernel, '__name__', kernel)!r} is not a cuTile kernel",
            "decorate it with @ct.kernel (import cuda.tile as ct)",
        )
    gpu_code = gpu_code_for(arch)
    unknown = sorted(set(hints or {}) - set(HINTS))
    if unknown:
        raise InputError(
            f"sv.cutile: {', '.join(unknown)} is no cuTile kernel hint",
            f"hints are {', '.join(HINTS)}; a constant parameter is set by its name",
        )
    if hints:
        kernel = kernel.replace_hints(**hints)
    convention = calling_convention or CallingConvention.cutile_python_v1()
    try:
        # named as the function: cuTile's own mangled name (vector_add_Kt1_A1f32_...) spells
        # the signature, which the declaration and the variant's label already say
        signature = KernelSignature(list(parameters), convention, symbol=kernel._pyfunc.__name__)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"cuTile rejects the signature of {kernel._pyfunc.__name__}: {exc}",
            "one ArrayConstraint / ScalarConstraint / constant per kernel parameter, in order",
        ) from None
    fn = kernel._pyfunc
    path = fn.__code__.co_filename
    text = _read_text(path)
    versions = {"cuda-tile": ct.__version__, **_tileiras_version(), **toolchain_versions()}
    key = cache.make_key(
        {
            "frontend": "cutile",
            "file": path,
            "source": hashlib.sha256((text or "").encode()).hexdigest(),
            "kernel": fn.__qualname__,
            "signature": repr(signature),
            "hints": repr(kernel._compiler_options),
            "gpu_code": gpu_code,
            "tools": versions,
            "tool_files": toolchain_identity(),  # which files, not only their word
        }
    )
    files = get_or_build(
        cache.Store("cutile"),
        key,
        _FILES,
        lambda: _run(kernel, signature, gpu_code),
        said=Said(log, "cutile", fn.__name__, gpu_code),
        meta={"kernel": fn.__name__, "arch": gpu_code},
    )
    cubin = bytes(files["kernel.cubin"]) if isinstance(files["kernel.cubin"], bytes) else b""
    from sassview.binary.elf import read_cubin

    info = read_cubin(cubin, where=f"{fn.__name__} ({gpu_code})")
    return Artifacts(
        kind="cutile",
        arch=info.arch,
        source_path=path,
        source_text=text,
        ptx=info.debug_ptx or None,  # without the Tile IR tileiras appends (binary/elf.py)
        cubin=cubin,
        options=(f"gpu_code={gpu_code}", *_described(kernel._compiler_options)),
        toolchain=MappingProxyType(versions),
        stages=MappingProxyType({s: _text(files[f"{s}.txt"]) for s in STAGES}),
    )


def gpu_code_for(arch: str) -> str:
    """export_kernel's `gpu_code` for a sassview arch: the number alone (sm_100a -> sm_100)."""
    number = parse_arch(arch).number
    if number not in TARGETS:
        raise InputError(
            f"tileiras cannot compile for {arch}",
            "cuTile targets " + ", ".join(f"sm_{n}" for n in TARGETS),
        )
    return f"sm_{number}"


def _run(kernel: Any, signature: Any, gpu_code: str) -> dict[str, bytes | str]:
    from cuda.tile._exception import TileError
    from cuda.tile.compilation import export_kernel

    out = io.BytesIO()
    with _lock, _no_cutile_cache():
        try:
            export_kernel(kernel, [signature], out, gpu_code=gpu_code, output_format="cubin")
        except TileError as exc:
            raise _compile_error(exc, kernel) from None
        stages = _stages(kernel, signature, gpu_code)
    return {"kernel.cubin": out.getvalue(), **{f"{s}.txt": stages.get(s, "") for s in STAGES}}


def _stages(kernel: Any, signature: Any, gpu_code: str) -> dict[str, str]:
    """cuTile's IR after its passes and the Tile IR text (see the module's docstring)."""
    try:
        from cuda.tile._compile import _bytecode_to_mlir_text, compile_tile

        result = compile_tile(
            kernel._annotated_function, [signature], sm_arch=gpu_code,
            compiler_options=kernel._compiler_options, return_final_ir=True,
            return_bytecode=True, return_cubin=False,
        )  # fmt: skip
        stages = {"cutile_ir": "\n".join(b.to_string() for b in result.final_ir or ())}
        stages["tileir"] = _bytecode_to_mlir_text(bytes(result.bytecode or b""))
    except Exception as exc:  # a private API: the cubin stands without its stages
        log.warning("cutile: no IR stages for %s: %s", kernel._pyfunc.__name__, exc)
        return {}
    return stages


@contextmanager
def _no_cutile_cache() -> Iterator[None]:
    from cuda.tile._cext import default_tile_context

    config = default_tile_context.config
    before = config.cache_dir
    config.cache_dir = None
    try:
        yield
    finally:
        config.cache_dir = before


def _compile_error(exc: Exception, kernel: Any) -> CompileError:
    """cuTile's error, at the kernel file's line it names (TileError keeps a Loc)."""
    loc = getattr(exc, "loc", None)
    where = f"{loc.filename}:{loc.line}: " if loc is not None and loc.filename else ""
    message = str(getattr(exc, "message", exc)).strip().splitlines() or [type(exc).__name__]
    return CompileError(
        f"{where}cuTile cannot compile {kernel._pyfunc.__name__}: {message[0]}",
        "fix the kernel (cuTile's own message is above)",
        detail=str(exc),
    )


def _described(options: Any) -> list[str]:
    return [f"{h}={getattr(options, h)}" for h in HINTS if getattr(options, h, None) is not None]


def _import_cutile() -> ModuleType:
    try:
        ct: ModuleType = importlib.import_module("cuda.tile")
    except ImportError:
        raise ToolchainError(
            "cuTile Python is not installed", "pip install cuda-tile nvidia-cuda-tileiras"
        ) from None
    return ct


def _tileiras_version() -> dict[str, str]:
    from sassview.frontends.registry import distribution_version

    found = distribution_version("nvidia-cuda-tileiras")
    if found is None:
        raise ToolchainError(
            "tileiras (cuTile's compiler) is not installed", "pip install nvidia-cuda-tileiras"
        )
    return {"tileiras": found}


def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _text(data: bytes | str) -> str:
    return data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data


__all__ = ["HINTS", "STAGES", "TARGETS", "compile_cutile", "gpu_code_for"]
