"""How every command ends on a SassviewError: its message, detail and hint on stderr (one
message, never a traceback), then the error's exit code (2 for input and toolchain errors).

A module of its own so that cli.py and the cli_*.py command modules it registers both import it,
and none of them imports the other's helpers (that was an import cycle).
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from sassview.errors import SassviewError


def fail(exc: SassviewError) -> NoReturn:
    click.echo(f"error: {exc.message}", err=True)
    if exc.detail:
        click.echo(exc.detail.rstrip(), err=True)
    if exc.hint:
        click.echo(f"hint: {exc.hint}", err=True)
    sys.exit(exc.exit_code)
