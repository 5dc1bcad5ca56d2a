"""The functions NVVM inlined, by the names its PTX gives them: each `.loc` of inlined code
names its function (`.loc 2 37 3, function_name $L__info_string7, inlined_at 1 45 3`), a label
of the `.debug_str` section holding its symbol (`_Z6sum_sqILi6EEfRAT__Kf`): the instantiation
the compiler made, with the template arguments it deduced (`sum_sq<6>`). analyses/loops/files.py
reads a helper template's arguments from it where the source does not give them.

How it can be wrong: only the call site a `.loc` names is there (`inlined_at` is the innermost
call), so a helper whose code at one call line comes from two instantiations (called from
two instantiations of its caller, or twice on one line) has two names there, and none is
taken; a PTX without `-lineinfo` has none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sassview.memo import memoized
from sassview.parse.ptx_lex import file_directive

_LOC = re.compile(
    r"^[ \t]*\.loc[ \t]+(\d+)[ \t]+(\d+)[ \t]+\d+[ \t]*,[ \t]*function_name[ \t]+"
    r"(\$L__info_string\d+)[ \t]*,[ \t]*inlined_at[ \t]+(\d+)[ \t]+(\d+)",
    re.M,
)
_FILE = re.compile(r"^[ \t]*\.file[ \t]+(.*)$", re.M)
_STRING = re.compile(r"^(\$L__info_string\d+):[ \t]*\n((?:[ \t]*\.b8[^\n]*\n)+)", re.M)


@dataclass(frozen=True, slots=True)
class Inlined:
    """Each `.loc` of inlined code: (PTX line, file, line, call file, call line, symbol)."""

    locs: tuple[tuple[int, str, int, str, int, str], ...]


@memoized(4)
def inlined(ptx: str) -> Inlined:
    """The `.loc`s of inlined code in `ptx`, with the symbol of each one's function."""
    files: dict[int, str] = {}
    for m in _FILE.finditer(ptx):
        try:
            index, path = file_directive(m.group(1))
        except ValueError:
            continue
        files[index] = path
    strings = {}
    for m in _STRING.finditer(ptx):
        data = bytes(
            int(b) for b in re.findall(r"\d+", m.group(2).replace(".b8", "")) if int(b) < 256
        )
        strings[m.group(1)] = data.split(b"\0", 1)[0].decode("ascii", "replace")
    out = []
    line, at = 1, 0
    for m in _LOC.finditer(ptx):
        line += ptx.count("\n", at, m.start())
        at = m.start()
        file, site = files.get(int(m.group(1))), files.get(int(m.group(4)))
        symbol = strings.get(m.group(3))
        if file and site and symbol:
            out.append((line, file, int(m.group(2)), site, int(m.group(5)), symbol))
    return Inlined(tuple(out))


def symbols_at(
    ptx: str, lines: tuple[int, int], file: str, body: tuple[int, int], site: tuple[str, int]
) -> frozenset[str]:
    """The symbols of the functions whose code on lines `body` of `file` is inlined at call
    site `site`, among the `.loc`s on PTX lines `lines` (one kernel's)."""
    return frozenset(
        symbol
        for at, f, n, s, c, symbol in inlined(ptx).locs
        if lines[0] <= at <= lines[1] and f == file and body[0] <= n <= body[1] and (s, c) == site
    )


__all__ = ["Inlined", "inlined", "symbols_at"]
