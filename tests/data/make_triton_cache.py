"""Record tests/data/triton_cache: a real Triton cache, filled by triton.compile (no GPU).

    python tests/data/make_triton_cache.py [DIR]   (default: tests/data/triton_cache)

Compiles the kernels of data/frontends/triton_cache_kernels.py for GPUTarget("cuda", cc, 32)
with Triton's cache pointed at DIR, as a run on a GPU machine would fill ~/.triton/cache. The
tests use it as it is: with or without Triton installed, and with the kernels' source file
absent (its recorded path is the checkout's it was made in).
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PTR16 = [["tt.divisibility", 16]]


def fill(
    directory: Path,
    source: Path = HERE / "frontends" / "triton_cache_kernels.py",
    *,
    dump: Path | None = None,
) -> None:
    """Compile every kernel of `source` into the Triton cache `directory` (and, with `dump`,
    into a TRITON_KERNEL_DUMP directory as well). Triton's knobs are restored afterwards."""
    from triton import knobs

    spec = importlib.util.spec_from_file_location(f"triton_cache_{abs(hash(source))}", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    with knobs.cache.scope(), knobs.compilation.scope(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION is unset")
        knobs.cache.dir = str(directory)
        if dump is not None:
            knobs.compilation.dump_ir = True
            knobs.cache.dump_dir = str(dump)
        add_sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
        _compile(module.add, add_sig, {"BLOCK": 1024}, 90, num_warps=4)
        mm_sig = {n: "*fp16" for n in ("a_ptr", "b_ptr", "c_ptr")} | {
            n: "i32" for n in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm")
        }
        blocks = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
        _compile(module.matmul, mm_sig, blocks, 90, num_warps=8, num_stages=3)
        small = {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}
        _compile(module.matmul, mm_sig, small, 80, num_warps=4, num_stages=2)
        ind_sig = {"in_ptr0": "*fp32", "in_ptr1": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32"}
        _compile(module.triton_poi_fused_add_mul_0, ind_sig, {"XBLOCK": 256}, 90, num_warps=2)


def fill_unaligned(
    directory: Path, source: Path = HERE / "frontends" / "triton_cache_kernels.py"
) -> None:
    """`add` compiled into `directory` as a launch whose pointers and size are not multiples
    of 16 makes it: no `tt.divisibility`, so 32-bit accesses (a finding whose hint names
    `divisibility=`)."""
    from triton import knobs

    spec = importlib.util.spec_from_file_location(f"triton_cache_{abs(hash(source))}", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    with knobs.cache.scope(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION is unset")
        knobs.cache.dir = str(directory)
        add_sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
        _compile(module.add, add_sig, {"BLOCK": 1024}, 90, aligned=False, num_warps=4)


def _compile(
    fn: Any, sig: dict[str, str], consts: dict[str, Any], cc: int, *, aligned: bool = True,
    **options: Any,
) -> None:  # fmt: skip
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    names = list(fn.arg_names)
    # every pointer and size 16-divisible (unless not `aligned`: none is)
    attrs = {(names.index(n),): PTR16 for n in sig} if aligned else {}
    src = ASTSource(
        fn=fn,
        signature={**sig, **dict.fromkeys(consts, "constexpr")},
        constexprs={(names.index(k),): v for k, v in consts.items()},
        attrs=attrs,
    )
    triton.compile(src, target=GPUTarget("cuda", cc, 32), options=options)


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "triton_cache"
    shutil.rmtree(out, ignore_errors=True)
    fill(out)
    print(f"{out}: {len(list(out.iterdir()))} entries")
