"""The census' entries and where each instruction sits in them: an entry is a loop statement
in one inline context (`Key`), and an instruction belongs to the innermost loop statement its
inline chain passes through (its own frame if that line lies in a loop, else the call site it
was inlined at, and so on out). Apart from the measuring because it is the one structure every
step asks of (which entry, which role, which entries around it) and it is memoised here once:
the census asks it once per instruction counted.
"""

from __future__ import annotations

from collections.abc import Iterable

from sassview.analyses.loops.files import SourceFiles
from sassview.ir import SourceLoc
from sassview.parse.source_loops import SourceLoop

Sites = tuple[tuple[str, int], ...]  # call sites (file, line), innermost first
Key = tuple[str, int, Sites]  # (file, index of its source loop, call sites)
STATEMENT, BODY, INLINED = 0, 1, 2  # where an instruction sits in its entry


class Tree:
    """Entries of the census and where each instruction sits in them."""

    def __init__(self, files: SourceFiles) -> None:
        self.files = files
        self.sites: dict[Key, tuple[SourceLoc, ...]] = {}
        self._memo: dict[SourceLoc, tuple[Key | None, int]] = {}
        self._parents: dict[Key, Key | None] = {}
        self._around: dict[Key, frozenset[Key]] = {}

    def around(self, key: Key) -> frozenset[Key]:
        """`ancestors` as a set, memoised: asked once per instruction counted."""
        found = self._around.get(key)
        if found is None:
            found = self._around[key] = frozenset(self.ancestors(key))
        return found

    def place(self, loc: SourceLoc) -> tuple[Key | None, int]:
        """(entry, role) of code at `loc`: the innermost loop its chain passes through."""
        found = self._memo.get(loc)
        if found is None:
            found = self._memo[loc] = self._place(loc)
        return found

    def _place(self, loc: SourceLoc) -> tuple[Key | None, int]:
        frames = list(loc.frames())
        for j, fr in enumerate(frames):
            idx = self.files.innermost(fr.file, fr.line)
            if idx is None:
                continue
            outside = tuple(frames[j + 1 :])
            key = (fr.file, idx, tuple((f.file, f.line) for f in outside))
            self.sites.setdefault(key, outside)
            s = self.files.loops(fr.file)[idx]
            role = STATEMENT if fr.line in s.statement else BODY if j == 0 else INLINED
            return key, role
        return None, -1

    def loop(self, key: Key) -> SourceLoop:
        """The key's loop statement as it reads in its inline context (a helper template's
        bounds are its call site's arguments: `SourceFiles.loop_at`)."""
        return self.files.loop_at(*key)

    def parent(self, key: Key) -> Key | None:
        if key not in self._parents:
            up = self.loop(key).parent
            if up is not None:
                self._parents[key] = (key[0], up, key[2])
                self.sites.setdefault((key[0], up, key[2]), self.sites.get(key, ()))
            else:
                # a key this tree never placed code at (asked of a rolled build that left none
                # there): its call sites as the key names them
                site = self.sites.get(key) or _chain(key[2])
                self._parents[key] = self.place(site[0])[0] if site else None
        return self._parents[key]

    def ancestors(self, key: Key) -> list[Key]:
        """The key and every entry around it, innermost first."""
        out: list[Key] = []
        k: Key | None = key
        while k is not None:
            out.append(k)
            k = self.parent(k)
        return out

    def lca(self, keys: Iterable[Key]) -> Key | None:
        common: list[Key] | None = None
        for k in keys:
            chain = self.ancestors(k)
            if common is None:
                common = chain
            else:
                inside = set(chain)
                common = [c for c in common if c in inside]
        return common[0] if common else None


def _chain(sites: Sites) -> tuple[SourceLoc, ...]:
    """The frames of call sites (file, line), innermost first, as `SourceLoc.frames` gives."""
    loc: SourceLoc | None = None
    for file, line in reversed(sites):
        loc = SourceLoc(file, line, 0, loc)
    return tuple(loc.frames()) if loc is not None else ()
