"""`sassview toolchain add|list|remove|verify`: other CUDA releases beside the installed one.

The store is toolchain/store.py's (where, what makes one whole); fetching is fetch.py's. Each
command says what it did and where; a release the index lacks, a torn or a tampered toolchain
is an error (exit 2) with the fix.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from sassview.errors import SassviewError
from sassview.views.fail import fail as _fail


@click.group(name="toolchain")
def toolchain_group() -> None:
    """Other CUDA releases, side by side: compile with one using --toolchain RELEASE."""


def _size(total: int) -> str:
    return f"{total / 1e6:.0f} MB"


@toolchain_group.command("add")
@click.argument("release")
@click.option(
    "--wheels",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Take the wheels from this directory instead of the index (pip --no-index).",
)
@click.option("--force", is_flag=True, help="Fetch and unpack it again even if it is there.")
def toolchain_add(release: str, wheels: Path | None, force: bool) -> None:
    """Fetch RELEASE's NVIDIA wheels with pip (e.g. 12.9), verify them, and store them."""
    from sassview.toolchain.fetch import add

    started = time.monotonic()
    try:
        added = add(release, wheels=wheels, force=force)
    except SassviewError as exc:
        _fail(exc)
    tc = added.toolchain
    if not added.fresh:
        click.echo(f"toolchain {tc.release} is already added (verified): {tc.path}")
        return
    size = sum(s for _, s in tc.files.values())
    click.echo(
        f"added toolchain {tc.release}: {len(tc.packages)} wheels, {len(tc.files)} files, "
        f"{_size(size)}, in {time.monotonic() - started:.1f} s -> {tc.path}"
    )
    for name, version in tc.packages:
        click.echo(f"  {name} {version}")
    if added.skipped:
        click.echo(f"  not published for {tc.release}: {', '.join(added.skipped)}")
    click.echo(f"compile with it: sassview check FILE.cu --toolchain {tc.release}")


@toolchain_group.command("list")
def toolchain_list() -> None:
    """The installed release and every stored one (a torn or damaged one says so)."""
    for line in toolchain_lines():
        click.echo(line)


def toolchain_lines() -> list[str]:
    """One line per toolchain, the default first (also what `doctor` prints)."""
    from sassview.toolchain import store
    from sassview.toolchain.locate import toolchain_versions

    nvrtc = toolchain_versions().get("nvrtc", "missing")
    lines = [f"{'default':<10} CUDA {nvrtc} (the installed wheels)"]
    for release in store.stored_releases():
        try:
            tc = store.find(release)
        except SassviewError as exc:
            lines.append(f"{release:<10} BROKEN: {exc.message}")
            lines.append(f"{'':<10} fix: {exc.hint}")
            continue
        tools = [n for n in ("ptxas", "nvcc", "nvdisasm") if tc.executable(n)]
        has = ", ".join(["nvrtc", *(["nvJitLink"] if tc.nvjitlink else []), *tools])
        lines.append(f"{release:<10} {tc.label}: {has}  {tc.path}")
    lines.append(f"{'':<10} store: {store.store_root()}")
    return lines


@toolchain_group.command("remove")
@click.argument("release")
def toolchain_remove(release: str) -> None:
    """Remove a stored release (whole, torn or damaged)."""
    from sassview.toolchain.store import remove

    try:
        path = remove(release)
    except SassviewError as exc:
        _fail(exc)
    click.echo(f"removed toolchain {release}: {path}")


@toolchain_group.command("verify")
@click.argument("release")
def toolchain_verify(release: str) -> None:
    """Re-hash every file of a stored release against what was added."""
    from sassview.toolchain import store

    try:
        tc = store.find(release)
        store.verify(tc)
    except SassviewError as exc:
        _fail(exc)
    click.echo(f"toolchain {tc.release}: all {len(tc.files)} files as added")
