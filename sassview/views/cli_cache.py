"""`sassview cache info|clear|prune`: what the compile cache holds, and emptying it honestly.

Each command says what really happened: what was removed, what could not be (a read-only disk:
exit 2), and what was left alone because it is not provably sassview's (named). The scratch
directories (NVRTC's unpacked headers) are listed apart from the entries: the size limit counts
entries only, and `clear` removes both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from sassview import cache  # its modules load on first use (sassview/cache/__init__.py)
from sassview.errors import SassviewError
from sassview.views.fail import fail as _fail

if TYPE_CHECKING:
    from sassview.cache import CacheInfo, Cleanup

_SHOWN = 5  # foreign paths named one by one; the rest are counted


def _mb(n: float) -> str:
    return f"{n / 1e3:.1f} kB" if n < 100_000 else f"{n / 1e6:.1f} MB"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@click.group(name="cache")
def cache_group() -> None:
    """Inspect or empty the compile cache."""
    from sassview.cache.limit import hold

    hold()  # `info` only looks; `clear` and `prune` report what they remove


@cache_group.command("info")
def cache_info() -> None:
    """What the cache holds: entries, scratch directories, anything that is not sassview's, and
    whether the remote cache ($SASSVIEW_CACHE_URL) answers."""
    found = cache.info()
    if found.problem:
        click.echo(f"{found.root} {found.problem}: caching is off (set SASSVIEW_CACHE_DIR)")
        return
    click.echo(f"{found.root}: {found.entries} entries, {_mb(found.bytes)}")
    off = cache.state(found.root)
    if off:
        click.echo(f"  caching is {off.strip('()')}")
    _describe_limit()
    _describe_rest(found)
    _describe_remote()


def _describe_limit() -> None:
    try:
        limit = cache.size_limit()
    except SassviewError as exc:  # the limit is not applied: said, and info goes on
        click.echo(f"warning: {exc.message} ({exc.hint})", err=True)
        return
    if limit:
        click.echo(f"  size limit {_mb(limit)} (SASSVIEW_CACHE_MAX_MB): trimmed after each command")


def _describe_remote() -> None:
    from sassview.cache import remote

    shared = remote.info()
    if shared is None:
        return
    if shared.answered:
        click.echo(f"remote {shared.url}: answered (read on a local miss, written after a build)")
    else:
        click.echo(f"remote {shared.url}: did not answer ({shared.problem}); local only")


def _describe_rest(found: CacheInfo) -> None:
    for s in found.scratch:
        click.echo(
            f"  scratch  {_mb(s.size):>9}  {s.path.relative_to(found.root)}"
            "  (not counted by the size limit; `cache clear` removes it)"
        )
    if found.garbage:
        size = sum(g.size for g in found.garbage)
        click.echo(
            f"  torn     {_mb(size):>9}  {len(found.garbage)} unfinished or damaged"
            " entries (the next prune removes them)"
        )
    if found.foreign:
        size = sum(f.size for f in found.foreign)
        names = ", ".join(str(f.path.relative_to(found.root)) for f in found.foreign[:_SHOWN])
        more = f" and {len(found.foreign) - _SHOWN} more" if len(found.foreign) > _SHOWN else ""
        click.echo(
            f"  not sassview's, left alone: {_count(len(found.foreign), 'item')}, {_mb(size)}:"
            f" {names}{more}"
        )
    if not found.ours and (found.entries or found.garbage or found.scratch or found.foreign):
        click.echo(f"  no sassview marker ({cache.MARKER}): clear and prune remove nothing here")


def _report(done: Cleanup, verb: str) -> None:
    """Print what a clear or prune did; fail (exit 2) when the root was refused or a removal
    failed, after saying what did happen."""
    if done.refused:
        _fail(
            SassviewError(
                f"{done.root} has no sassview marker ({cache.MARKER}): it is not provably"
                f" sassview's cache, so {verb} removed nothing",
                "sassview marks a directory when it first writes a cache entry there;"
                " `sassview cache info` lists what it holds",
            )
        )
    click.echo(f"removed {done.entries} entries ({_mb(done.bytes)}) from {done.root}")
    if done.garbage:
        click.echo(f"  and {done.garbage} unfinished or damaged entries")
    for s in done.scratch:
        click.echo(f"  and scratch {s.path.name} ({_mb(s.size)}; remade when next needed)")
    after = cache.info(done.root)
    click.echo(f"entries now: {after.entries}, {_mb(after.bytes)}")
    _describe_rest(after)
    if done.failed:
        _fail(
            SassviewError(
                f"could not remove {done.failed} item(s) from {done.root}: {done.why}",
                "make the cache directory writable, or set SASSVIEW_CACHE_DIR to one that is",
            )
        )


@cache_group.command("clear")
def cache_clear() -> None:
    """Remove every entry and scratch directory of sassview's; leave everything else."""
    try:
        done = cache.clear()
    except SassviewError as exc:
        _fail(exc)
        return
    _report(done, "clear")


@cache_group.command("prune")
@click.option(
    "--max-mb", required=True, help="Keep at most this many MB of entries (inf: no limit)."
)
def cache_prune(max_mb: str) -> None:
    """Remove the least recently used entries until they fit in --max-mb."""
    try:
        done = cache.prune(cache.parse_megabytes(max_mb, "--max-mb"))
    except SassviewError as exc:
        _fail(exc)
        return
    _report(done, "prune")
