"""The one golden-file discipline (tests/helpers/goldens.py), run as a user runs it: a golden
that differs fails with a diff and is left alone; `--update-goldens` rewrites it whole, lists
it at the end and fails that run, so no run passes by rewriting; the next run passes."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFTEST = "from helpers.goldens import golden, pytest_addoption, pytest_configure  # noqa\n"
TEST = """
from pathlib import Path

def test_page(golden):
    golden.check(Path("page.txt"), "made now\\n")

def test_two_pages(golden):
    golden.check(Path("one.txt"), "one now\\n")
    golden.check(Path("two.txt"), "two now\\n")

def test_block(golden):
    text = Path("doc.md").read_text()
    kept = text[text.index("<!-- a -->") : text.index("<!-- b -->")]
    golden.check_part(Path("doc.md"), kept, "<!-- a -->\\nnew\\n")

def test_same(golden):
    golden.check(Path("same.txt"), "kept\\n")
"""
pytest_plugins = ["pytester"]
QUIET = ("-p", "no:cacheprovider", "-p", "no:textual-snapshot")


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_docs=TEST)
    (pytester.path / "page.txt").write_text("made before\n")
    (pytester.path / "doc.md").write_text("# doc\n<!-- a -->\nold\n<!-- b -->\nold\n")
    (pytester.path / "same.txt").write_text("kept\n")
    (pytester.path / "one.txt").write_text("one before\n")
    (pytester.path / "two.txt").write_text("two before\n")
    return pytester


def test_a_stale_golden_fails_with_its_diff_and_is_not_written(project: pytest.Pytester) -> None:
    result = project.runpytest(*QUIET)
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        ["*page.txt differs from what is made now; run pytest --update-goldens*", "*-made before"]
    )
    assert (project.path / "page.txt").read_text() == "made before\n"
    assert "goldens written" not in result.stdout.str()


def test_update_writes_atomically_lists_what_it_wrote_and_fails_that_run(
    project: pytest.Pytester,
) -> None:
    result = project.runpytest(*QUIET, "--update-goldens")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        ["*goldens written by --update-goldens*", "wrote: *doc.md", "wrote: *one.txt",
         "wrote: *page.txt", "wrote: *two.txt", "4 written; this run fails*"]
    )  # fmt: skip
    assert (project.path / "page.txt").read_text() == "made now\n"
    # a test comparing two files rewrites both in one run, and fails naming both
    assert (project.path / "two.txt").read_text() == "two now\n"
    result.stdout.fnmatch_lines(["*wrote one.txt, two.txt (--update-goldens)*"])
    # only the block the test names is rewritten; the other one, the same text, is left
    assert (project.path / "doc.md").read_text() == "# doc\n<!-- a -->\nnew\n<!-- b -->\nold\n"
    assert not [p.name for p in Path(project.path).iterdir() if p.name.endswith(".tmp")]
    project.runpytest(*QUIET).assert_outcomes(passed=4)  # and the next run passes


def test_a_missing_golden_is_written_by_update_only(project: pytest.Pytester) -> None:
    (project.path / "page.txt").unlink()
    project.runpytest(*QUIET).stdout.fnmatch_lines(["*no golden page.txt*--update-goldens*"])
    assert not (project.path / "page.txt").exists()
    project.runpytest(*QUIET, "--update-goldens").assert_outcomes(passed=1, failed=3)
    assert (project.path / "page.txt").read_text() == "made now\n"


def test_syrupys_own_update_switch_is_refused(project: pytest.Pytester) -> None:
    result = project.runpytest("-p", "no:cacheprovider", "--snapshot-update")
    result.stderr.fnmatch_lines(["*rewritten with --update-goldens, not --snapshot-update*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
