"""One discipline for every file a test compares with what the program makes now: the export
goldens (tests/data/export), the TUI snapshots (tests/__snapshots__), the docs' pictures, the
README's and docs' samples and docs/errors.md.

A test calls the `golden` fixture (tests/conftest.py): `golden.check(path, text)` for a whole
file, `golden.check_part(path, kept, made)` for one block inside a file (a README sample).
Without `--update-goldens` a missing or different file fails the test with a diff, and nothing
is written. With `pytest --update-goldens` each file that differs is rewritten atomically (a
temporary file beside it, then `os.replace`, so a reader never sees half a file), the test that
wrote it fails naming it, and the run's summary lists every file written: a run that rewrote a
golden never passes, so no CI run can pass by rewriting. Read `git diff`, commit, and run again
without the option.
"""

from __future__ import annotations

import difflib
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

OPTION = "--update-goldens"
# The user_properties name a test's report carries for each file it wrote (xdist workers send
# their reports to the controller, whose summary lists them all).
WROTE = "golden-written"
ROOT = Path(__file__).resolve().parents[2]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        OPTION,
        action="store_true",
        default=False,
        help="rewrite the goldens and snapshots that differ (atomically), list them, and fail "
        "the run: review the diff, then run again without it",
    )


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "update_snapshots", False):  # syrupy's own switch
        raise pytest.UsageError(
            f"this project's snapshots are rewritten with {OPTION}, not --snapshot-update"
        )
    config.pluginmanager.register(_Written(), "sassview-goldens-written")


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Goldens:
    """Compare a file with what is made now; rewrite it with --update-goldens."""
    return Goldens(bool(request.config.getoption(OPTION)), request.node)


def shown(path: Path) -> str:
    """`path` relative to the repository where it is inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def write_atomically(path: Path, text: str) -> None:
    """`text` into `path` whole or not at all: a temporary file in the same directory (the same
    file system), flushed, then renamed over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold a lock on `path` (xdist workers rewriting blocks of one README take turns)."""
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    lock = Path(tempfile.gettempdir()) / f"sassview-golden-{key}.lock"
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _diff(kept: str, made: str, name: str) -> str:
    lines = difflib.unified_diff(
        kept.splitlines(), made.splitlines(), f"{name} (kept)", f"{name} (made now)", lineterm=""
    )
    return "\n".join(lines)


class Goldens:
    """The `golden` fixture: compares, or (with --update-goldens) rewrites and fails."""

    def __init__(self, update: bool, node: pytest.Item) -> None:
        self.update = update
        self.node = node

    def check(self, path: Path, made: str) -> None:
        """`path` holds exactly `made`."""
        kept = path.read_text(encoding="utf-8") if path.exists() else None
        if kept == made:
            return
        if self.update:
            write_atomically(path, made)
            self._wrote(path)
            return
        if kept is None:
            pytest.fail(f"no golden {shown(path)}: run pytest {OPTION} to write it", pytrace=False)
        pytest.fail(
            f"{shown(path)} differs from what is made now; run pytest {OPTION} to rewrite it "
            f"and read the diff:\n{_diff(kept, made, shown(path))}",
            pytrace=False,
        )

    def check_part(self, path: Path, kept: str, made: str) -> None:
        """The block `kept` of `path` is `made` (one sample of a Markdown page)."""
        if kept == made:
            return
        if self.update:
            with _locked(path):
                text = path.read_text(encoding="utf-8")
                assert kept in text, f"{shown(path)} no longer holds the block"
                write_atomically(path, text.replace(kept, made, 1))
            self._wrote(path)
            return
        pytest.fail(
            f"{shown(path)}: a block is not what is made now; run pytest {OPTION} to rewrite "
            f"it and read the diff:\n{_diff(kept, made, shown(path))}",
            pytrace=False,
        )

    def _wrote(self, path: Path) -> None:
        """Say in the report that `path` was written. The test goes on (one comparing several
        files rewrites all of them in one run, not one a run) and fails when it ends:
        _Written turns its report into a failure that names them."""
        self.node.user_properties.append((WROTE, shown(path)))


class _Written:
    """The files this session's tests wrote (their reports reach the controller under
    xdist), listed at the end of the run."""

    def __init__(self) -> None:
        self.files: list[str] = []

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Iterator[None]:
        """A test that passed after writing goldens fails, naming what it wrote."""
        outcome = yield
        report: pytest.TestReport = outcome.get_result()  # type: ignore[attr-defined]
        wrote = [str(v) for name, v in item.user_properties if name == WROTE]
        if call.when == "call" and report.passed and wrote:
            report.outcome = "failed"
            report.longrepr = (
                f"wrote {', '.join(wrote)} ({OPTION}): read `git diff`, commit it, and run "
                "again without the option"
            )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.files += [str(v) for name, v in report.user_properties if name == WROTE]

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.files:
            return
        wrote = sorted(set(self.files))
        terminalreporter.section(f"goldens written by {OPTION}")
        for name in wrote:
            terminalreporter.write_line(f"wrote: {name}")
        terminalreporter.write_line(
            f"{len(wrote)} written; this run fails: read `git diff`, commit, and run again "
            f"without {OPTION}"
        )
