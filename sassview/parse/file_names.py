"""File names as the CUDA toolchain passes them along: C-escaped, and never unescaped.

NVRTC (and nvcc) write a source's name into the PTX `.file` directive as a C string literal:
each byte above 0x7f as an octal escape (`/home/Jos\\303\\251/k.cu`), a backslash as `\\\\`.
ptxas copies that text into the cubin's line table as it is, splitting it into a directory
and a file at the last `/` or `\\`; nvdisasm prints both as they are, in its JSON (no JSON
escaping: `\\303` is not valid JSON) and in its text listing. So every reader of a name gets
the escaped text, and the real name is recovered here, in one place.

The split at a `\\` is what makes a non-ASCII *file* name (`/tmp/été.cu`) come back as the
directory `/tmp/\\303\\251t\\303` and the file `251.cu`. Joined with `/`, that decodes to
invalid UTF-8 (a lead byte before the `/`); joined with the `\\` ptxas took away, to the real
name. `dwarf_file_name` picks the join that decodes, preferring `/`.
"""

from __future__ import annotations

import os
import re

# A C escape: up to three octal digits, or one character. The `\\\\` pair is an escape of its
# own, so that a backslash it escapes never starts another.
_C_ESCAPE = re.compile(r"\\([0-7]{1,3}|.)", re.S)
_C_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def c_unescape(text: str) -> str:
    """The name a C-escaped string literal's body spells (`Jos\\303\\251` -> `José`); bytes
    that are not UTF-8 become surrogates, as `os.fsdecode` gives them, so that the name still
    opens the file. Text without a backslash is returned as it is."""
    if "\\" not in text:
        return text
    return os.fsdecode(_unescaped_bytes(text))


def _unescaped_bytes(text: str) -> bytes:
    out = bytearray()
    pos = 0
    for match in _C_ESCAPE.finditer(text):
        out += os.fsencode(text[pos : match.start()])
        escape = match.group(1)
        if escape[0] in "01234567":
            out.append(int(escape, 8) & 0xFF)
        else:
            out += os.fsencode(_C_SIMPLE.get(escape, escape))  # \\ \" \' \? and unknown ones
        pos = match.end()
    out += os.fsencode(text[pos:])
    return bytes(out)


def dwarf_file_name(joined: str) -> str:
    """A line table's directory and file, joined with `/` as nvdisasm's text listing joins
    them, -> the real name: unescaped, and rejoined with the `\\` that ptxas split at when
    only that join decodes as UTF-8 (see the module docstring)."""
    if "\\" not in joined:
        return joined
    slash = joined.rfind("/")
    for candidate in (joined, f"{joined[:slash]}\\{joined[slash + 1 :]}" if slash >= 0 else ""):
        try:
            return _unescaped_bytes(candidate).decode("utf-8")
        except UnicodeDecodeError:
            continue
    return c_unescape(joined)


# In nvdisasm's JSON: a backslash before an octal digit (not valid JSON), or a `\\\\` pair,
# matched as a pair so that the backslash it escapes is never taken for the start of another.
_JSON_OCTAL = re.compile(r"\\([\\0-7])")


def json_with_octal_escapes_kept(text: str) -> str:
    """nvdisasm's JSON made valid where a line table's names hold C octal escapes (bytes of
    a non-ASCII name, copied unescaped): each such backslash is escaped, so the JSON string
    holds the C-escaped name as the text listing does, for `dwarf_file_name` to read. The
    escapes NVRTC writes besides (`\\\\`, `\\t`, ...) mean in JSON what they mean in C."""
    return _JSON_OCTAL.sub(_escaped_backslash, text)


def _escaped_backslash(match: re.Match[str]) -> str:
    return match.group(0) if match.group(1) == "\\" else "\\" + match.group(0)
