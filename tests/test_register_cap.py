"""`-maxrregcount` asked of a `__launch_bounds__` kernel: ptxas ignores it, and every view says
so (check's findings, sweep and try under their tables), with launch bounds that do cap."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import sassview
from sassview.analyses.register_cap import asked_cap

pytestmark = pytest.mark.compile
ROOT = Path(__file__).parents[1]
BLOCKED = ROOT / "examples" / "matmul" / "03_register_blocking.cu"  # __launch_bounds__(256)


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sassview", *map(str, args)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def test_asked_cap_reads_every_spelling() -> None:
    assert asked_cap(["-lineinfo", "-maxrregcount=32"]) == 32
    assert asked_cap(["--maxrregcount", "64"]) == 64
    assert asked_cap(["-maxrregcount=32", "-maxrregcount=48"]) == 48  # the last one wins
    assert asked_cap(["-lineinfo"]) is None


def test_check_says_the_cap_does_not_apply_and_its_hint_caps() -> None:
    done = cli("check", BLOCKED, "-X=-maxrregcount=32", "--json")
    assert done.returncode == 0, done.stderr
    (k,) = json.loads(done.stdout)["programs"][0]["kernels"]
    (note,) = [a for a in k["annotations"] if a["kind"] == "maxrregcount-ignored"]
    assert k["resources"]["registers"] > 32 and note["severity"] == "note"
    assert (
        "__launch_bounds__(256)" in note["message"] and "__launch_bounds__(256, 8)" in note["hint"]
    )
    # The launch bounds the hint names do cap the kernel at 32.
    capped = BLOCKED.read_text().replace("__launch_bounds__(256)", "__launch_bounds__(256, 8)")
    (kernel,) = sassview.compile(capped, arch="sm_90a").kernels
    assert kernel.resources.registers <= 32
    # Without launch bounds the option applies, and nothing is said.
    plain = cli("check", ROOT / "examples" / "vecadd.cu", "-X=-maxrregcount=32")
    assert plain.returncode == 0 and "maxrregcount-ignored" not in plain.stdout


def test_sweep_of_the_cap_says_why_its_rows_are_the_same() -> None:
    done = cli("sweep", BLOCKED, "-p", "-maxrregcount=32,64")
    assert done.returncode == 0, done.stderr
    assert "-maxrregcount=32 does not apply: the kernel's __launch_bounds__(256)" in done.stdout
    assert "-maxrregcount=64 does not apply" in done.stdout


def test_try_says_so_for_a_declared_cap(tmp_path: Path) -> None:
    kernel_py = tmp_path / "kernel.py"
    kernel_py.write_text(
        "import sassview as sv\n"
        f"sv.cuda_file({str(BLOCKED)!r}, arch='sm_90a', options=['-maxrregcount=32'])\n"
    )
    done = cli("try", kernel_py)
    assert done.returncode == 0, done.stderr
    assert "-maxrregcount=32 does not apply" in done.stdout
