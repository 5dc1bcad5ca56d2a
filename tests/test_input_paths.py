"""Paths as users have them: non-ASCII names map back to the real file; names the toolchain
cannot carry, links that go nowhere and directories get one clear message each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.compile
# A loop, and a helper inlined into it: the text listing's inline chain names the file too.
SOURCE = """\
__device__ float twice(float x) {
  return x * 2.0f + 1.0f;
}

__global__ void scale(float* p, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    p[i] = twice(p[i]);
  }
}
"""


def sassview(*args: str | Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sassview", *map(str, args)],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "SASSVIEW_CACHE_DIR": str(cache)},
    )  # fmt: skip


def exported(source: Path, out: Path, cache: Path) -> str:
    """The JSON export of `source` (paths relative to its directory), its file name as `@`."""
    done = sassview("export", source, "-o", out, "-f", "json", cache=cache)
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("*.json")
    text = json.dumps(json.loads(path.read_text()), ensure_ascii=False)
    assert text.count(source.name) > 10  # instructions and PTX lines map to the file
    return text.replace(source.name, "@")


@pytest.fixture(scope="module")
def ascii_export(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The export an ASCII path gives: the same for every case below (the file's name is `@`,
    paths are relative to its directory), so it is made once for the module."""
    base = tmp_path_factory.mktemp("ascii")
    plain = base / "k.cu"
    plain.write_text(SOURCE)
    expected = exported(plain, base / "out", base / "cache")
    assert '"line": 2}, {"column": 0, "file": "@", "line": 7}' in expected  # inlined at line 7
    return expected


@pytest.mark.parametrize(
    "where",
    ["José/k.cu", "plain/kérnel.cu", "日本/été-ü.cu"],
    ids=["directory", "file", "both"],
)
def test_a_non_ascii_path_maps_every_line_back_to_the_real_file(
    tmp_path: Path, where: str, ascii_export: str
) -> None:
    """nvdisasm writes such a name with C octal escapes (`Jos\\303\\251`), in its JSON too,
    where they are not valid JSON; ptxas splits a non-ASCII file name at an escape's `\\`.
    The listing must be the one an ASCII path gives, name for name."""
    other = tmp_path / where
    other.parent.mkdir(parents=True)
    other.write_text(SOURCE)
    cache = tmp_path / "cache"
    assert exported(other, tmp_path / "out-other", cache) == ascii_export
    done = sassview("check", other, "--json", cache=cache)
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    assert program["source"] == str(other)
    (loop,) = program["kernels"][0]["analysis"]["loops"]
    assert loop["source_line"] > 0


TRITON_FILE = """\
import sassview as sv
import triton
import triton.language as tl

@triton.jit
def double(x_ptr, n, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):
        i = start + tl.arange(0, BLOCK)
        tl.store(x_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2, mask=i < n)

sv.triton(double, signature={"x_ptr": "*fp32", "n": "i32"}, constexprs={"BLOCK": 128},
          arch="sm_90a")
"""


def test_a_triton_kernel_file_with_a_non_ascii_name_maps_to_its_lines(tmp_path: Path) -> None:
    """For sm_90a (sm_80 goes through Triton's own older ptxas, which rejects the name)."""
    pytest.importorskip("triton")
    programs = []
    for name in ("plain/kernel.py", "José/kérnel.py"):
        path = tmp_path / name
        path.parent.mkdir()
        path.write_text(TRITON_FILE)
        done = sassview("check", path, "--json", cache=tmp_path / "cache")
        assert done.returncode == 0, done.stderr
        (program,) = json.loads(done.stdout)["programs"]
        assert program["source"] == str(path)
        assert program["kernels"][0]["analysis"]["loops"]
        programs.append(json.dumps(program, ensure_ascii=False).replace(str(path), "@"))
    assert programs[0] == programs[1]


def test_triton_for_sm80_at_a_non_ascii_file_name_says_what_to_do(tmp_path: Path) -> None:
    """Triton's bundled ptxas for sm_80 stops at the non-ASCII name LLVM copies into the PTX:
    one message that names the file and the two ways out, not "a Triton limitation or bug"."""
    pytest.importorskip("triton")
    path = tmp_path / "kérnel.py"
    path.write_text(TRITON_FILE.replace('"sm_90a"', '"sm_80"'))
    done = sassview("check", path, cache=tmp_path / "cache")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"refuses the non-ASCII characters of {path}" in done.stderr
    assert "give the file an ASCII name, or compile for sm_90a or later" in done.stderr
