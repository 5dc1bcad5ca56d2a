"""What a first try types: checks given as text, on stdin or in a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_sassview as sassview

pytestmark = pytest.mark.compile
VECADD = Path(__file__).parents[1] / "examples" / "vecadd.cu"


def test_filecheck_takes_check_strings_in_place_of_a_file() -> None:
    ok = sassview("filecheck", "--check-string", "CHECK-LABEL: add_f4",
                  "--check-string", "CHECK: LDG.E.128", VECADD)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    bad = sassview("filecheck", "--check-string", "CHECK: STL", VECADD, "-k", "add_f4")
    assert bad.returncode == 1
    assert bad.stderr.startswith("<check-string>:1:8: error: CHECK: expected string not found")


def test_filecheck_reads_checks_from_stdin() -> None:
    ok = sassview("filecheck", "-", VECADD, "-k", "add_f4", stdin="CHECK: LDG.E.128\n")
    assert ok.returncode == 0, ok.stderr
    bad = sassview("filecheck", "-", VECADD, "-k", "add_f4", stdin="CHECK-NOT: LDG.E.128\n")
    assert bad.returncode == 1 and bad.stderr.startswith("<stdin>:1:")
