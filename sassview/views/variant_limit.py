"""How many variants one command may compile before it asks: every command that compiles a
kernel.py's variants (check, try, sweep, export, filecheck) alike.

A kernel.py's declarations or a sweep's grid can multiply into thousands of compiles, each
seconds to minutes. Above the limit (`--max-variants N`, else 200) a person at a terminal is
asked; without one (CI, a pipe) the command refuses with the flag that lets them through.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

MAX_VARIANTS_HELP = (
    "Compile up to this many variants without asking (default: ask above 200; "
    "without a terminal, refuse)."
)


def allow_variants(count: int, max_variants: int | None, what: str) -> None:
    """Refuse `count` compiles over the limit, unless a person at a terminal says yes; at a
    terminal, say how many are about to compile (they may take minutes)."""
    from sassview.steer.sweep import DEFAULT_MAX_VARIANTS, too_many_variants

    limit = max_variants or DEFAULT_MAX_VARIANTS
    refusal = too_many_variants(count, limit, given=max_variants is not None, what=what)
    if refusal is not None:
        asked = max_variants is None and sys.stdin.isatty() and sys.stderr.isatty()
        if not (asked and click.confirm(f"sassview: compile all {count} variants?", err=True)):
            raise refusal
    if count > 1 and sys.stderr.isatty():
        click.echo(f"sassview: compiling {count} variants of {what} …", err=True)


def variant_guard(max_variants: int | None, what: str) -> Callable[[int], None]:
    """`allow_variants` for a count known later (api.load_kernel_file calls it)."""
    return lambda count: allow_variants(count, max_variants, what)
