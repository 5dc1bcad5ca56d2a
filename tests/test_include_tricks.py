"""A header edit is seen however the #include is spelled (frontends/includes.py): the digraph
`%:include` and a line splice inside the directive's name, through the real CLI: the edit
makes the header fail to compile, so a stale cache entry would answer exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_sassview

from sassview.frontends.includes import IncludeScan, unlisted_files

pytestmark = pytest.mark.compile

KERNEL = "__global__ void k(float* p) {{ p[0] = from_header(p[0]); }}\n"


@pytest.mark.parametrize(
    "directive",
    [
        pytest.param('%:include "h.h"\n', id="digraph"),
        pytest.param('#inc\\\nlude "h.h"\n', id="splice-in-name"),
        pytest.param('%:  inc\\\nlude "h.h"\n', id="both"),
    ],
)
def test_a_header_edit_is_seen_however_the_include_is_spelled(
    tmp_path: Path, directive: str
) -> None:
    header = tmp_path / "h.h"
    header.write_text("__device__ float from_header(float x) { return x * 2.0f; }\n")
    source = tmp_path / "k.cu"
    source.write_text(directive + KERNEL.format())
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "cache")}
    first = run_sassview("check", source, env=env)
    assert first.returncode == 0, first.stderr
    header.write_text("__device__ float from_header(float x) { return x * ; }\n")
    second = run_sassview("check", source, env=env)
    assert second.returncode == 2, second.stdout  # compiled again: the edit broke it
    assert "h.h" in second.stderr


def test_a_file_the_ptx_names_but_the_scan_missed_is_reported() -> None:
    """The compiler's own word as a safety net: a file with code in the PTX's line table that
    the scan did not list (the scan was fooled) keeps the result out of the cache."""
    ptx = '.file 1 "/src/k.cu"\n.file 2 "/src/hidden.h"\n.file 3 "/headers/cuda/std/x"\n'
    scan = IncludeScan({"/src/seen.h": b""})
    assert unlisted_files(ptx, scan, "/src/k.cu", "/headers") == ["/src/hidden.h"]
    scan.files["/src/hidden.h"] = b""
    assert unlisted_files(ptx, scan, "/src/k.cu", "/headers") == []


@pytest.mark.parametrize(
    "options",
    [["-MM"], ["--generate-dependencies"], ["-MD", "-MF", "deps.d"],
     ["--generate-dependencies-with-compile", "--dependency-output=deps.d"]],
)  # fmt: skip
def test_nvrtc_still_refuses_dependency_output(tmp_path: Path, options: list[str]) -> None:
    """Why the cache key of an NVRTC compile comes from frontends/includes.py's scan and not
    from the compiler: NVRTC (13.5 measured, cuda.bindings.nvrtc) refuses every dependency
    option nvcc has. The day one is accepted, this fails: take the list from it instead."""
    from sassview.errors import CompileError
    from sassview.frontends.nvrtc_api import nvrtc_compile

    source = b'#include "m.h"\n__global__ void k(float* x) { x[threadIdx.x] = W; }\n'
    (tmp_path / "m.h").write_text("#define W 4\n")
    with pytest.raises(CompileError, match="unrecognized option"):
        nvrtc_compile(
            source, str(tmp_path / "k.cu"), [*options, f"-I{tmp_path}", "--gpu-architecture=sm_90"]
        )
    assert not (tmp_path / "deps.d").exists()
