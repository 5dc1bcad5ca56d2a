"""How every command ends on a SassviewError: its message, detail and hint on stderr (one
message, never a traceback), then the error's exit code (2 for input and toolchain errors).

A module of its own so that cli.py and the cli_*.py command modules it registers both import it,
and none of them imports the other's helpers (that was an import cycle).
"""

from __future__ import annotations

import re
import sys
from typing import NoReturn

import click

from sassview.errors import SassviewError


def fail(exc: SassviewError) -> NoReturn:
    click.echo(visible(f"error: {exc.message}"), err=True)
    if exc.detail:
        click.echo(visible(exc.detail.rstrip()), err=True)
    if exc.hint:
        click.echo(visible(f"hint: {exc.hint}"), err=True)
    sys.exit(exc.exit_code)


# Every control character but line breaks and tabs: C0, DEL and C1 (ESC starts a terminal
# command; C1's CSI is one on its own).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` with its control characters written out (`\\x1b`): an error echoes file names and
    compiler logs, which a hostile file can fill with escape sequences that would retitle,
    recolour or rewrite the user's terminal."""
    text = text.replace("\r\n", "\n")  # a Windows line end in an echoed source line is no attack
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
