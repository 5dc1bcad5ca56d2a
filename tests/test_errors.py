"""The bad-input matrix: each case through the real CLI, one message, the right exit code; and
docs/errors.md, made from the same cases by docs/gen_errors.py, is what they print now."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from error_cases import CASES, Case, environment
from helpers.goldens import Goldens

ROOT = Path(__file__).resolve().parents[1]


def _gen_errors() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_errors", ROOT / "docs" / "gen_errors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_at_least_forty_distinct_cases() -> None:
    assert len({c.id for c in CASES}) == len(CASES) >= 40


@pytest.mark.compile
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_error_case(case: Case, tmp_path: Path) -> None:
    if case.group == "kernel.py" and case.id.startswith("triton"):
        pytest.importorskip("triton")
    torch_cases = ("kernel-py-calls-torch", "torch-extension")
    if case.id in torch_cases and importlib.util.find_spec("torch") is not None:
        pytest.skip("torch is installed: the case is a machine without it")
    args = case.args(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "sassview", *map(str, args)],
        capture_output=True, text=True, timeout=300, env=environment(case, tmp_path),
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == case.code, output
    assert "Traceback" not in output
    assert "\x1b" not in output  # what a file holds never drives the user's terminal
    for needle in case.needles:
        assert needle in output, output
    if case.code == 2 and case.group not in ("usage", "tools") or case.id == "nvdisasm-fails":
        # (after the notes that say what build was taken: a header's includer, the project's)
        assert _after_notes(done.stderr).startswith("error: "), done.stderr
    # Nothing half-made is left in the cache.
    assert not list((tmp_path / "cache").rglob(".tmp-*"))


def _after_notes(stderr: str) -> str:
    """stderr without its leading `note:` lines and their indented continuations."""
    lines = stderr.splitlines(keepends=True)
    while lines and (lines[0].startswith("note: ") or lines[0].startswith("  ")):
        lines.pop(0)
    return "".join(lines)


@pytest.mark.compile
def test_the_errors_page_is_what_the_cases_print_now(golden: Goldens) -> None:
    """`python docs/gen_errors.py --check` as a test (`pytest --update-goldens` rewrites it)."""
    gen = _gen_errors()
    golden.check(gen.TARGET, gen.render())


def test_gen_errors_check_fails_on_a_stale_page_and_passes_on_a_current_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    gen = _gen_errors()
    page = tmp_path / "errors.md"
    page.write_text("# Errors\nold\n", encoding="utf-8")
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    monkeypatch.setattr(gen, "TARGET", page)
    monkeypatch.setattr(gen, "render", lambda: "# Errors\nnew\n")
    assert gen.main(["--check"]) == 1
    out = capsys.readouterr()
    assert "-old" in out.out and "+new" in out.out and "stale" in out.err
    assert page.read_text(encoding="utf-8") == "# Errors\nold\n"  # --check writes nothing
    assert gen.main([]) == 0 and page.read_text(encoding="utf-8") == "# Errors\nnew\n"
    assert gen.main(["--check"]) == 0


def test_visible_writes_out_every_control_character_but_line_breaks_and_tabs() -> None:
    from sassview.views.fail import visible

    assert visible("a\x1b[31mb\x07\x9b\x00") == "a\\x1b[31mb\\x07\\x9b\\x00"
    assert visible("line\r\nnext\tcol · ü") == "line\nnext\tcol · ü"  # CRLF: a Windows file
    assert visible("over\rwrite") == "over\\x0dwrite"  # a bare CR rewrites the line
