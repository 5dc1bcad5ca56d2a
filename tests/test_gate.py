"""The compiler-upgrade gate (testing/gate.py) as a user meets it: `sassview baseline` and the
pytest options, over a kernel of ours changed in a way that matters and in one that does not.
(Across two releases: test_toolchain_release.py.)"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from helpers.kernels import SCALE_SHIFT as KERNEL

import sassview.api  # noqa: F401  (loaded once for the inner pytest sessions)
import sassview.testing.matchers  # noqa: F401
from tests.conftest import assert_clean_error, run_sassview

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.compile


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "scale_shift.cu"
    path.write_text(KERNEL)
    return path


def test_baseline_records_then_passes_benign_and_fails_significant(
    kernel: Path, tmp_path: Path
) -> None:
    base = tmp_path / "baseline"
    args = (kernel, "--dir", base)
    missing = run_sassview("baseline", *args)
    assert missing.returncode == 1 and "MISSING" in missing.stdout, missing.stdout
    wrote = run_sassview("baseline", *args, "--update")
    assert wrote.returncode == 0, wrote.stderr
    (written,) = base.rglob("*.json")
    assert "wrote     scale_shift · sm_90a · CUDA 13." in wrote.stdout
    assert str(written.relative_to(tmp_path)) in wrote.stdout or written.name in wrote.stdout
    entry = json.loads(written.read_text())
    assert entry["kernel"] == "scale_shift" and list(entry["entries"]) == ["13.5"]

    same = run_sassview("baseline", *args)
    assert same.returncode == 0 and same.stdout.startswith("same "), same.stdout

    benign = run_sassview("baseline", *args, "-D", "SHIFT=2.0f")
    assert benign.returncode == 0, benign.stdout
    assert benign.stdout.startswith("benign ")
    assert "instructions differ in their immediates or constant offsets only" in benign.stdout

    narrow = run_sassview("baseline", *args, "-D", "WIDTH=1")
    assert narrow.returncode == 1, narrow.stdout
    assert narrow.stdout.startswith("SIGNIFICANT scale_shift")
    assert "significant global_load_bits: 128 -> 32" in narrow.stdout
    assert "- LDG.E.128" in narrow.stdout  # the evidence
    assert json.loads(written.read_text()) == entry  # a check never writes


def test_update_rewrites_only_what_differs_and_says_so(kernel: Path, tmp_path: Path) -> None:
    base = tmp_path / "baseline"
    assert run_sassview("baseline", kernel, "--dir", base, "--update").returncode == 0
    again = run_sassview("baseline", kernel, "--dir", base, "--update")
    assert again.stdout.startswith("same "), again.stdout  # nothing written
    changed = run_sassview("baseline", kernel, "--dir", base, "--update", "-D", "WIDTH=1")
    assert (
        changed.returncode == 0 and "wrote " in changed.stdout and "(significant)" in changed.stdout
    )


def test_a_kernel_name_not_in_the_file_is_an_input_error(kernel: Path, tmp_path: Path) -> None:
    done = run_sassview("baseline", kernel, "--dir", tmp_path / "b", "-k", "nope")
    assert_clean_error(done, "no kernel named nope")


def test_a_damaged_baseline_is_an_input_error(kernel: Path, tmp_path: Path) -> None:
    base = tmp_path / "baseline"
    assert run_sassview("baseline", kernel, "--dir", base, "--update").returncode == 0
    (written,) = base.rglob("*.json")
    written.write_text("{not json")
    assert_clean_error(run_sassview("baseline", kernel, "--dir", base), "not a sassview baseline")


def test_the_pytest_gate_fails_a_test_whose_kernel_changed_significantly(
    pytester: pytest.Pytester, kernel: Path
) -> None:
    (pytester.path / "scale_shift.cu").write_text(KERNEL)
    pytester.makepyfile(
        test_k=textwrap.dedent(
            """
            import os

            def test_kernel(sassview_kernel):
                width = os.environ.get("WIDTH", "4")
                k = sassview_kernel("scale_shift.cu", defines=[f"WIDTH={width}"])
                k.assert_no_spills()
            """
        )
    )
    quiet = ("-p", "no:cacheprovider", "-p", "no:textual-snapshot")
    gate = ("--sassview-baseline", str(pytester.path / "gate"))
    first = pytester.runpytest_subprocess(*quiet, *gate)
    first.assert_outcomes(failed=1)
    first.stdout.fnmatch_lines(["*has none at*record it with --sassview-baseline-update*"])
    recorded = pytester.runpytest_subprocess(*quiet, *gate, "--sassview-baseline-update")
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(
        ["*sassview baselines*", "written: *scale_shift*.json", "1 written*"]
    )
    assert pytester.runpytest_subprocess(*quiet, *gate).ret == 0
    pytester._monkeypatch.setenv("WIDTH", "1")
    changed = pytester.runpytest_subprocess(*quiet, *gate)
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        ["*scale_shift (sm_90a, CUDA 13.*) changed against the baseline of CUDA 13.*: significant*",
         "*significant global_load_bits: 128 -> 32*"]
    )  # fmt: skip
