"""One family of errors for everything sassview can refuse.

Every error carries a one-line message (what went wrong) and a hint (what to do about it).
Tool failures also carry the exact command and the tool's own output, so a user can rerun it.
Nothing below the CLI prints: the CLI renders these and chooses the exit code.
"""

from __future__ import annotations

from collections.abc import Sequence


class SassviewError(Exception):
    """A problem sassview can explain: bad input, a missing tool, a failed compile."""

    exit_code = 2

    def __init__(self, message: str, hint: str = "", *, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.detail = detail

    def __str__(self) -> str:
        parts = [self.message]
        if self.detail:
            parts.append(self.detail.rstrip())
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


class InputError(SassviewError):
    """The user's file, option or kernel name cannot be used as given."""


class CompileError(SassviewError):
    """The user's kernel does not compile; `detail` holds the compiler's log."""


class ToolchainError(SassviewError):
    """A tool is missing, too old, or disagrees with the others."""


class ToolFailed(ToolchainError):
    """A tool ran and failed: keeps the exact command line and the tool's own text."""

    def __init__(self, message: str, command: Sequence[str], output: str, hint: str = "") -> None:
        self.command = tuple(command)
        self.output = output
        detail = "command: " + " ".join(self.command)
        if output.strip():
            detail += "\n" + output.strip()
        super().__init__(message, hint, detail=detail)


class ParseError(SassviewError):
    """A listing or binary does not have the shape we expect; says where reading stopped."""

    def __init__(self, message: str, *, where: str = "", hint: str = "") -> None:
        self.where = where
        full = f"{where}: {message}" if where else message
        super().__init__(full, hint)
