"""Which files an MCP client may name: those under its roots, and nothing else.

The roots are the client's (MCP `roots/list`, file:// URIs) when it declares them, else the
directories `sassview mcp --root` was given, else the server's working directory. A path is
resolved (symlinks followed, `..` collapsed) before it is compared, so neither a link nor a
`../..` leads out; a path that does not exist is refused as such, before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from sassview.errors import InputError


def roots_from_uris(uris: Iterable[str]) -> list[Path]:
    """file:// URIs -> directories; any other scheme is no root of files here."""
    found = []
    for uri in uris:
        parsed = urlparse(uri)
        if parsed.scheme == "file" and parsed.netloc in ("", "localhost"):
            found.append(Path(unquote(parsed.path)))
    return found


class Roots:
    """The directories a client's paths must lie under (each resolved once)."""

    def __init__(self, roots: Sequence[Path]) -> None:
        self.dirs = tuple(Path(os.path.realpath(r)) for r in roots)

    def __str__(self) -> str:
        return ", ".join(str(d) for d in self.dirs) or "(none)"

    def file(self, text: str, *, what: str = "path") -> Path:
        """`text` as an existing file under a root; relative paths are taken from the first."""
        return self._resolve(text, what=what, want_dir=False)

    def directory(self, text: str, *, what: str = "include directory") -> Path:
        return self._resolve(text, what=what, want_dir=True)

    def _resolve(self, text: str, *, what: str, want_dir: bool) -> Path:
        if not self.dirs:
            raise InputError(f"no root to resolve {what} {text!r} under", _ROOTS_HINT)
        if not text or "\x00" in text:
            raise InputError(f"{what} {text!r} is not a path", "give a file under the roots")
        given = Path(text)
        path = Path(os.path.realpath(given if given.is_absolute() else self.dirs[0] / given))
        if not any(path == d or path.is_relative_to(d) for d in self.dirs):
            raise InputError(
                f"{what} {text} is outside the roots this server may read ({self})",
                _ROOTS_HINT,
            )
        if want_dir and not path.is_dir():
            raise InputError(
                f"{what} {text} is not a directory", "give a directory under the roots"
            )
        if not want_dir and not (path.is_file() or path.is_dir()):
            raise InputError(f"{what} {text} does not exist", "give a file under the roots")
        return path


_ROOTS_HINT = (
    "name a file under the client's roots (or under `sassview mcp --root DIR`, which defaults to "
    "the server's working directory)"
)
