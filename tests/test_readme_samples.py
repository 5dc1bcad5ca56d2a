"""The sample outputs in README.md and docs/*.md are what the commands print today: each block
under a `<!-- sample: COMMAND -->` marker is run again (docs/gen_samples.py does the running and
the normalising) and compared with what the Markdown says. `pytest --update-goldens` (or
`python docs/gen_samples.py`) rewrites the blocks that differ.

A sample made by another CUDA release than this machine's is skipped on a developer's machine
(its SASS is another release's, not drift in ours) and fails in CI (env CI set), where the
toolchain is the one the samples must be made with."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from conftest import in_ci
from helpers.goldens import Goldens

ROOT = Path(__file__).resolve().parents[1]


def _gen_samples() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_samples", ROOT / "docs" / "gen_samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _gen_samples()
SAMPLES = [(path, m) for path in gen.FILES for m in gen.SAMPLE.finditer(path.read_text())]


def test_the_readme_check_sample_is_marked() -> None:
    """The README's `check` sample is one of the generated ones (an unmarked block drifts)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert any(c.startswith("sassview check ") for c in gen.commands(readme))


def test_the_readme_shows_the_tui_export_and_diff_and_links_their_pages() -> None:
    """A new user finds every way to look, as commands to type, and the page of each."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for command in ("tui", "export", "diff"):
        assert re.search(rf"^\.venv/bin/sassview {command} \S", readme, re.M), command
    assert "(docs/tui.md)" in readme and "(docs/export.md)" in readme
    bare = re.findall(r"`(?:pip|mkdocs|pytest|python) [^`]*`", readme)
    assert not bare, f"tools outside the venv: {bare}"


def test_a_check_sample_names_the_file_as_its_command_does() -> None:
    """The header and places of a `check` sample are the path typed (what a run prints from
    the repository), not an absolute path written `./` by the generator."""
    for path, m in SAMPLES:
        command = m["command"]
        if command.startswith("sassview check "):
            typed = command.split()[2]
            assert f"\n== {typed} · " in m["body"], (path.name, command)


def test_rewrite_replaces_only_the_marked_blocks() -> None:
    text = (
        "```text\n$ sassview check a.cu\nunmarked, left alone\n```\n\n"
        "<!-- sample: sassview check b.cu -->\n```text\n$ sassview check b.cu\nstale\n```\n"
    )
    new = gen.rewrite(text, lambda command: f"out of {command}")
    assert new == text.replace("stale", "out of sassview check b.cu")
    assert gen.rewrite(new, lambda command: f"out of {command}") == new


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> object:
    return gen.Runner(str(tmp_path_factory.mktemp("cache")))


@pytest.mark.compile
@pytest.mark.parametrize(
    ("path", "sample"), SAMPLES, ids=[f"{p.name}: {m['command']}" for p, m in SAMPLES]
)
def test_sample_matches_a_real_run(
    path: Path, sample: re.Match[str], runner: object, golden: Goldens
) -> None:
    command = sample["command"]
    written = sample["body"]
    printed = gen.body(command, runner(command))  # type: ignore[operator]
    made_by, makes = _ptxas(written), _ptxas(printed)
    if made_by != makes:  # another CUDA release's SASS is another sample, not drift in ours
        why = f"the sample was made by {made_by}, this machine has {makes}: regenerate it"
        if in_ci():
            pytest.fail(f"{path.relative_to(ROOT)}: `{command}`: {why}", pytrace=False)
        pytest.skip(why)
    marker = sample.group(0)[: sample.start("body") - sample.start()]
    golden.check_part(path, marker + written, marker + printed)


def _ptxas(body: str) -> str | None:
    """The ptxas release a `check` sample's header names (`ptxas ... V13.5.37`), if any."""
    found = re.search(r"ptxas .*?(V\d+\.\d+\.\d+)", body)
    return found.group(1) if found else None
