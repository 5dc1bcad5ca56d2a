"""Seconds from the environment ($SASSVIEW_TOOL_TIMEOUT, $SASSVIEW_COMPILE_TIMEOUT), read
apart from toolchain/run.py so that the command line can check them at start without importing
what runs tools: a bad value is one error before anything runs, not only when a tool would run
(a warm check runs none, and said nothing)."""

from __future__ import annotations

import math
import os

from sassview.errors import InputError

TOOL_TIMEOUT_ENV = "SASSVIEW_TOOL_TIMEOUT"
COMPILE_TIMEOUT_ENV = "SASSVIEW_COMPILE_TIMEOUT"


def seconds_from_env(name: str) -> float | None:
    """A positive number of seconds from the environment variable `name`, None if unset."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InputError(
            f"{name}={text!r} is not a number of seconds",
            f"set it to a positive number, e.g. {name}=300, or unset it",
        )
    return value


def check_timeouts() -> None:
    """Raise the error a bad timeout setting would give, before any command runs."""
    for name in (TOOL_TIMEOUT_ENV, COMPILE_TIMEOUT_ENV):
        seconds_from_env(name)
