from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.goldens import golden, pytest_addoption, pytest_configure  # noqa: F401 (hooks)

CORPUS = Path(__file__).parent / "corpus"


def corpus_dirs() -> list[Path]:
    """Every recorded (case, arch) directory."""
    return sorted(p.parent for p in CORPUS.glob("*/*/kernel.cubin"))


def corpus_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test session gets its own cache, so tests never see a user's entries. Under
    pytest-xdist the workers of one session share it (their basetemps are siblings under the
    session's): a kernel several workers' tests compile is built once (cache/locks.py), as it is
    in one process."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "sassview-cache"
    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(root))
    monkeypatch.delenv("SASSVIEW_NO_CACHE", raising=False)
    # and its own config directory: no test reads or writes a user's TUI pane widths
    monkeypatch.setenv("SASSVIEW_CONFIG_DIR", str(tmp_path_factory.getbasetemp() / "config"))
    os.environ.setdefault("SASSVIEW_TEST", "1")


def run_sassview(
    *args: str | Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process, as a user runs it (`python -m sassview ARGS`)."""
    return subprocess.run(
        [sys.executable, "-m", "sassview", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        input=stdin,
        timeout=600,  # a hang guard, not a speed bound
    )


def assert_clean_error(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit 2, a message on stderr that names the problem, nothing on stdout, no traceback."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: ")
    assert done.stdout == ""
    for needle in needles:
        assert needle in done.stderr, done.stderr


# Where CI must have the second CUDA release (`sassview toolchain add 12.9` in .ci/run): set by
# .ci/run, or any CI that sets CI (GitHub Actions, GitLab, ...).
REQUIRE_TOOLCHAINS_ENV = "SASSVIEW_REQUIRE_TOOLCHAINS"


def toolchains_required() -> bool:
    """Must the stored releases be there (fail), or may their tests skip?"""
    return bool(os.environ.get(REQUIRE_TOOLCHAINS_ENV) or os.environ.get("CI"))


def in_ci() -> bool:
    """Is this a CI run (GitHub Actions, GitLab, .ci/run ... set CI)? What may skip on a
    developer's machine fails there."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def pytest_deselected(items: list[pytest.Item]) -> None:
    """Count the live-compile tests pyproject's `-m 'not compile'` left out (for the summary)."""
    config = items[0].config if items else None
    if config is not None:
        marked = sum(1 for item in items if item.get_closest_marker("compile") is not None)
        config.stash[_COMPILE_DESELECTED] = config.stash.get(_COMPILE_DESELECTED, 0) + marked


_COMPILE_DESELECTED = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    left_out = config.stash.get(_COMPILE_DESELECTED, 0)
    if left_out and "not compile" in (config.option.markexpr or ""):  # pyproject's default
        terminalreporter.write_line(
            f"{left_out} live-compile tests were left out: run them with `-m compile` "
            "(.ci/run does, after this command)"
        )
