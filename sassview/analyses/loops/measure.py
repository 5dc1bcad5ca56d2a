"""The census' measuring, one listing at a time: which entry each SASS (or PTX) loop goes to,
what one trip of it runs, and from those counts the factor of a rolled entry and the copies
of a full one (the rules: the census' module docstring). Apart from the census because it is
run on more than one listing: the census measures the SASS and, through a second `Measure`
over the PTX, NVVM's factors, and the Python census (loops/python.py) measures alike. What
it leaves to the census is what the census alone reads: the entries in order and their words,
NVVM's factors beside ptxas', the diverged-warp fallbacks and a butterfly's steps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sassview.analyses.loops.listing import Listing
from sassview.analyses.loops.ratios import Counts, copies_of, pool, ratio, steady_ratio
from sassview.analyses.loops.tree import STATEMENT, Key, Tree
from sassview.analyses.spins import ATOMIC_CAS_RETRY, loose_kind, ptxas_retry
from sassview.analyses.tile_loops import divides_most
from sassview.graph.loops import Loop
from sassview.ir import SassInstruction, SourceLoc
from sassview.parse.inline_asm import CallSites


class Measure:
    """The entries' SASS (or PTX) loops and what one trip of each runs."""

    def __init__(self, listing: Listing, tree: Tree, asm: CallSites | None = None) -> None:
        self.listing, self.tree, self.files = listing, tree, tree.files
        self.asm = asm
        self.ins = listing.instructions
        # Most big kernels are straight-line code of a source with no loop statement at all.
        looped = any(self.files.loops(f) for f in self.files.names)
        place = self.tree.place
        self.sources = listing.sources or [i.source for i in self.ins]
        placed = [place(src) if src and looped else (None, -1) for src in self.sources]
        self.key = [k for k, _ in placed]
        self.role = [r for _, r in placed]
        self.uncounted = listing.uncounted
        self._regions: dict[int | None, list[int]] = {}
        self.groups: dict[Key, list[Loop]] = {}
        self.loose: list[Loop] = []
        self.retries: dict[int, str] = {}  # loose loops ptxas made of one PTX instruction
        self.waits: dict[int, str] = {}  # the other loose loops by what they wait on or run
        self.copies: dict[Key, int | None] = {}  # of the full entries
        self.mains: dict[Key, Loop] = {}  # the main SASS loop of each rolled entry
        # SASS loops as unrolled as the main one: loop versions, or the loops of two call
        # sites the line table gives one inline context
        self.versions: dict[Key, list[Loop]] = {}
        self._assign()
        self._regions.clear()  # read before the retries were known
        for lp in self.loose:
            if lp.index not in self.retries and (kind := self._loose_kind(lp)) is not None:
                self.waits[lp.index] = kind

    def region(self, loop: Loop | None) -> list[int]:
        """Instruction indices of one trip of `loop` (without its nested loops), or of the code
        outside every loop. A CAS retry loop ptxas made of one atomic is the atomic, one trip
        of it: its statement's code, counted where the atomic is (8 copies of a shared
        `atomicAdd` on a float, each its own retry loop)."""
        key = loop.index if loop else None
        if key not in self._regions:
            cfg, loops = self.listing.cfg, self.listing.loops
            inner = {
                k
                for o in loops
                if (loop is None or o.parent == key)
                and self.retries.get(o.index) != ATOMIC_CAS_RETRY
                for k in o.blocks
            }
            own = loop.blocks if loop else {b.index for b in cfg.blocks if b.reachable}
            spans = (cfg.blocks[k] for k in sorted(own - inner))
            self._regions[key] = [i for b in spans for i in range(b.first, b.last + 1)]
        return self._regions[key]

    def _assign(self) -> None:
        """Each SASS loop to an entry, nested loops first (see the module docstring)."""
        loops = self.listing.loops
        taken: dict[int, Key] = {}
        found = {lp.index: self._holder_and_name(lp) for lp in loops}
        for lp in sorted(loops, key=lambda lp: -lp.depth):
            retry = self._ptxas_retry(lp)
            if retry is not None:  # a setmaxnreg retry at a K loop's `for`: no copy of it
                self.retries[lp.index] = retry
                self.loose.append(lp)
                continue
            if self._inline_asm_only(lp):  # an mbarrier spin loop: no statement's, listed apart
                self.loose.append(lp)
                continue
            lca, named = found[lp.index]
            if lca is None or (named is None and self._named_around(lp, lca, found)):
                self.loose.append(lp)
                continue
            key: Key | None = named or lca
            inside = {taken[o.index] for o in loops if o.index in taken and _within(o, lp, loops)}
            while key is not None and (key in inside or not self.can_hold(key)):
                key = self.tree.parent(key)
            if key is None:
                self.loose.append(lp)
                continue
            taken[lp.index] = key
            self.groups.setdefault(key, []).append(lp)

    def _holder_and_name(self, lp: Loop) -> tuple[Key | None, Key | None]:
        """(the deepest entry holding the loop's code, the entry around it that its back-edge
        compare names, if one does). Where no entry holds all of it (ptxas keeps a compare
        of an earlier loop, on that loop's line, inside a later one: the `i < 512` of a
        prologue's load loop in a double-buffered K loop), the deepest entry holding its math
        and memory."""
        cfg = self.listing.cfg
        code = [i for k in lp.blocks for i in range(cfg.blocks[k].first, cfg.blocks[k].last + 1)]
        lca = self.holder(code)
        if lca is None:  # code of two top-level entries: the one its math and memory are
            lca = self.holder([i for i in code if self.listing.weight(self.ins[i])[0] >= 1])
        if lca is None:
            return None, None
        around = self.tree.ancestors(lca)
        named = [k for loc in self.listing.candidates(lp) if (k := self._statement_key(loc))]
        up = next((k for k in named if k in around), None)
        if up is not None or len(self.listing.loops) < 2:
            return lca, up
        # A compare naming a statement inside the holder: ptxas moved code of the holder's
        # own lines into the loop (the `if (t + 1 < n)` around a prefetch loop in a
        # double-buffered K loop, its index arithmetic), so the code's holder is the K loop;
        # the loop is the named statement's where no other SASS loop names it.
        inner = [k for k in named if k != lca and lca in self.tree.ancestors(k)]
        return lca, next((k for k in inner if self._names_alone(lp, k)), None)

    def _names_alone(self, lp: Loop, key: Key) -> bool:
        """Whether no SASS loop but `lp` has a back-edge compare on `key`'s statement."""
        for o in self.listing.loops:
            if o.index != lp.index and any(
                self._statement_key(loc) == key for loc in self.listing.candidates(o)
            ):
                return False
        return True

    def _named_around(
        self, lp: Loop, key: Key, found: dict[int, tuple[Key | None, Key | None]]
    ) -> bool:
        """Whether a SASS loop around `lp` names `key` by its back-edge compare: `lp`, which
        names no statement, is then a loop the compiler made inside that statement's (the
        elect-one-lane loop ptxas wraps around a bulk copy in a K loop), not the K loop.
        Without PTX lines to tell inline asm's code (an offline listing) it would take the K
        loop's entry and leave the K loop to read as compiler-made."""
        loops = self.listing.loops
        return any(found[o.index][1] == key and _within(lp, o, loops) for o in loops)

    def holder(self, code: list[int]) -> Key | None:
        """The deepest entry holding all the code of `code` (instruction indices)."""
        skip = self.uncounted
        return self.tree.lca(k for i in code if (k := self.key[i]) is not None and i not in skip)

    def can_hold(self, key: Key) -> bool:
        """Whether the statement of `key` may be a SASS loop's (a Python loop unrolled while
        the kernel is traced may not: see loops/python.py)."""
        return not self.tree.loop(key).static

    def _loose_kind(self, loop: Loop) -> str | None:
        """What a loop of no statement waits on or runs (analyses/spins.py, `loose_kind`): an
        inline asm's mbarrier try-wait loop, the worker warps' dispatch loop. None in a PTX
        listing (its loops are the PTX's own)."""
        blocks = self.listing.cfg.blocks
        whole = [
            self.ins[i] for b in loop.blocks for i in range(blocks[b].first, blocks[b].last + 1)
        ]
        sass = [x for x in whole if isinstance(x, SassInstruction)]
        if len(sass) < len(whole):
            return None
        trip = [x for i in self.region(loop) if isinstance(x := self.ins[i], SassInstruction)]
        return loose_kind(trip, sass)

    def _inline_asm_only(self, loop: Loop) -> bool:
        """Whether every instruction of one trip of `loop` (nested loops aside) with a PTX line
        comes from inside an inline asm statement: a loop the asm made, not a loop statement
        (the source line it carries is the asm statement's)."""
        if not self.asm or not self.listing.ptx_lines:
            return False
        lines = [n for i in self.region(loop) if (n := self.listing.ptx_lines[i]) is not None]
        return bool(lines) and all(map(self.asm.inside, lines))

    def _ptxas_retry(self, loop: Loop) -> str | None:
        """What `loop` retries, where ptxas made it of one PTX instruction (analyses/spins.py:
        a `setmaxnreg.inc`'s USETMAXREG.TRY_ALLOC and its branch back); None for any other
        loop. Its line is the statement's around it, but none of its code is."""
        if any(o.parent == loop.index for o in self.listing.loops):
            return None
        trip = self.region(loop)
        body = [x for i in trip if isinstance(x := self.ins[i], SassInstruction)]
        if len(body) < len(trip):  # the PTX listing: its loops are the PTX's own
            return None
        lines = self.listing.ptx_lines
        return ptxas_retry(body, [lines[i] for i in trip] if lines else [])

    def _statement_key(self, loc: SourceLoc) -> Key | None:
        """The entry of the loop statement a frame of `loc` is on (its header lines)."""
        frames = list(loc.frames())
        for j, fr in enumerate(frames):
            idx = self.files.statement(fr.file, fr.line)
            if idx is not None:
                key = (fr.file, idx, tuple((f.file, f.line) for f in frames[j + 1 :]))
                self.tree.sites.setdefault(key, tuple(frames[j + 1 :]))
                return key
        return None

    # -- measuring -----------------------------------------------------------------------

    def counts(self, indices: Iterable[int], key: Key) -> Counts:
        """(pair, entry) -> weighted count over `indices`, for code of `key` and the entries
        inside it; the statement's own lines (induction, compare) only when nothing else is."""
        body, header = self.split_counts(indices, key)
        return body or header

    def split_counts(self, indices: Iterable[int], key: Key) -> tuple[Counts, Counts]:
        """`counts` as (body, the statement's own lines)."""
        body: Counts = Counter()
        header: Counts = Counter()
        skip = self.uncounted
        for i in indices:
            k = self.key[i]
            ins = self.ins[i]
            if k is None or i in skip or key not in self.tree.around(k):
                continue
            kind, n = self.listing.weight(ins)
            if kind < 0:
                continue
            src = self.sources[i]
            assert src is not None
            target = header if self.role[i] == STATEMENT and k == key else body
            target[((ins.opcode, src, kind), k)] += n
        return body, header

    def whole_counts(self, loop: Loop, key: Key) -> Counts:
        """The pooled counts of one trip of `loop`, the statement's own lines included."""
        body, header = self.split_counts(self.region(loop), key)
        return pool(body + header)

    def executions(self, inner: Key, outer: Key, copies: dict[Key, int | None]) -> int | None:
        """How many times `inner`'s body runs per iteration of `outer`: the copies of the full
        entries between them (None if one is unknown or a rolled one is between)."""
        n = 1
        for k in self.tree.ancestors(inner):
            if k == outer:
                return n
            c = copies.get(k)
            if c is None:
                return None
            n *= c
        return None

    def factor(
        self, key: Key, loops: list[Loop], copies: dict[Key, int | None]
    ) -> tuple[int | None, Loop, list[Loop], bool]:
        """(factor, main loop, remainder loops, straight-line remainder) of a rolled entry."""
        counted = [(lp, pool(self.counts(self.region(lp), key))) for lp in loops]
        if len(counted) > 1:
            ref_loop, ref = min(counted, key=lambda c: (sum(c[1].values()), -c[0].first_address))
            whole = self.whole_counts(ref_loop, key)
            ratios = [
                (
                    steady_ratio(c, ref, (self.whole_counts(lp, key), whole))
                    if lp is not ref_loop
                    else 1,
                    lp,
                )
                for lp, c in counted
            ]
            f, main = max(ratios, key=lambda r: (r[0] or 0, -r[1].first_address))
            rest = [lp for r, lp in ratios if lp is not main and (r or 0) < (f or 0)]
            self.versions[key] = [lp for lp in loops if lp is not main and lp not in rest]
            return f, main, rest, False
        main, c = counted[0]
        tail = self.tail(key, main)
        # Straight-line copies of the body beside the loop: NVVM's remainder unrolled (one
        # iteration's worth each, so the ratio is the factor) or ptxas' tail of its own
        # unrolling (several: the ratio is no whole number, the factor is counted below).
        straight = self.beside(key, main)
        r = ratio(c, tail) if straight else None
        if r is not None and r >= 2:
            return r, main, [], True
        body, header = self.split_counts(self.region(main), key)
        normal = []
        for (_, k), n in pool(body).items():
            m = self.executions(k, key, copies) if k != key else 1
            if m and n % m == 0:
                normal.append(n // m)
        if not normal:  # a body of nested rolled loops: the statement's own code, once a copy
            normal = list(pool(header).values())
        f = divides_most(normal) if normal else None
        # A loop not unrolled leaves no remainder: code beside it is a peeled iteration.
        return f, main, [], straight and (f or 1) > 1

    def tail(self, key: Key, main: Loop) -> Counts:
        """The entry's counts outside its main SASS loop, in the loop around it (or the
        kernel's straight-line code)."""
        outer = self.listing.loops[main.parent] if main.parent is not None else None
        return pool(self.counts(self.region(outer), key))

    def beside(self, key: Key, main: Loop) -> bool:
        """Whether straight-line copies of the entry's body lie beside its main SASS loop (a
        remainder, where the loop is unrolled)."""
        c = pool(self.counts(self.region(main), key))
        tail = self.tail(key, main)
        return bool(tail) and 2 * len([p for p in c if p in tail]) >= len(c)

    def measured_copies(self, key: Key, factors: dict[Key, int | None]) -> int | None:
        """Copies of a full entry with no constant trip count: its own code's counts over the
        executions of its statement (the copies and factor of the entries around it)."""
        found = self.runs(key, factors)
        if found is None:
            return None
        runs, where = found
        own = Counter(
            {p: n for p, n in self.counts(self.region(where), key).items() if p[1] == key}
        )
        total = copies_of(own)
        return total // runs if total and total % runs == 0 else None

    def runs(self, key: Key, factors: dict[Key, int | None]) -> tuple[int, Loop | None] | None:
        """(executions of a full entry's statement per trip of the SASS loop around it, that
        loop: None outside every loop), or None where a copy count or factor between them is
        unknown."""
        runs, k = 1, self.tree.parent(key)
        while k is not None and k not in self.groups:
            c = self.copies.get(k)
            if c is None:
                return None
            runs, k = runs * c, self.tree.parent(k)
        if k is None:
            return runs, None
        f = factors.get(k)
        return (runs * f, self.mains[k]) if f is not None else None


def _within(inner: Loop, outer: Loop, loops: tuple[Loop, ...]) -> bool:
    """Whether `inner` is nested (at any depth) in `outer`."""
    up = inner.parent
    while up is not None:
        if up == outer.index:
            return True
        up = loops[up].parent
    return False
