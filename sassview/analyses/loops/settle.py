"""Which loop entries the census' counting leaves open, and settling them from the rolled
builds (loops/rolled.py, where the evidence and its limits are described). Apart from the
evidence because this is the census' side of it: what counts as open, in which order the
entries are settled (rolled ones first, then full ones outermost first, as the census
counts), and the check every number from the rolled builds must pass in the real build.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from sassview.analyses.loops.measure import Measure
from sassview.analyses.loops.rolled import Variants, copies_ratio, own_signature, undecided
from sassview.analyses.loops.tree import Key


def open_entries(
    real: Measure,
    keys: Iterable[Key],
    factors: dict[Key, int | None],
    remainders: dict[Key, bool],
    single: Iterable[Key] = (),
) -> list[Key]:
    """The entries the counting leaves open: rolled ones `undecided`, or unrolled with no
    remainder loop to give the ratio (`single`) over memory wider than a word (16 cp.async
    of 16 bytes a trip, 15 straight-line: counted as their 64 words), but those with no
    code of their own in their main loop (a k loop whose body is a nest: nothing at its
    lines to set beside one rolled iteration, so `decide` could not settle it and no build
    is made for it); full ones with no count, or counted (no constant trip count) over
    memory wider than a word (a float4 copy counted as its 4 words where no math is there
    to say); and a full entry counted with no constant trip count straight inside a rolled
    one, with that rolled one: one trip's count of the inner body is the inner copies times
    the outer factor, which counting alone cannot split (an `x128::size` loop, 8 copies, in
    a loop ptxas unrolled by 4 read as 32 copies in a loop not unrolled)."""
    keys = list(keys)
    out = []
    wide = _wide_memory(real)
    alone = set(single)
    nested = _uncounted_in_rolled(real, keys)
    around_nested = {real.tree.parent(k) for k in nested}
    for k in keys:
        if k in real.groups:
            f = factors.get(k)
            asked = (
                undecided(f, remainders.get(k, False))
                or (k in wide and k in alone and (f or 0) > 1)
                or k in around_nested
            )
            if asked and own_signature(real, real.region(real.mains[k]), k):
                out.append(k)
        elif (
            real.copies.get(k) is None
            or (real.tree.loop(k).trip_count is None and k in wide)
            or k in nested
        ):
            out.append(k)
    return out


def _uncounted_in_rolled(real: Measure, keys: list[Key]) -> set[Key]:
    """The full entries counted with no constant trip count whose parent is a rolled entry."""
    out = set()
    for k in keys:
        parent = real.tree.parent(k)
        if k in real.groups or parent is None or parent not in real.groups:
            continue
        if real.tree.loop(k).trip_count is None and real.copies.get(k) is not None:
            out.add(k)
    return out


def _wide_memory(real: Measure) -> set[Key]:
    """The entries whose own code holds a memory access of more than one word."""
    out = set()
    for i, ins in enumerate(real.ins):
        k = real.key[i]
        if k is not None and k not in out:
            kind, n = real.listing.weight(ins)
            if kind == 1 and n > 1:
                out.add(k)
    return out


def flips(real: Measure, keys: Iterable[Key], main: str | None) -> dict[str, int]:
    """The headers whose loops' depths count one more in the rolled builds (`Variants`): each
    where most of its outermost loops, as inlined here, sit in a loop of another file whose
    depth (with its own flip) has their parity, so that the loop around them is rolled where
    they are not. The main file and headers never called inside a loop count as they are."""
    votes: dict[str, Counter[int]] = {}
    keys = list(keys)
    flip: dict[str, int] = {}
    for _ in range(4):  # a header's helper called in another header's loop: a few rounds
        votes.clear()
        for k in keys:
            p = real.tree.parent(k)
            if p is None or p[0] == k[0] or k[0] == main:
                continue
            around = real.tree.loop(p).depth + flip.get(p[0], 0)
            want = (around + 1 - real.tree.loop(k).depth) % 2
            votes.setdefault(k[0], Counter())[want] += 1
        found = {f: max(v.items(), key=lambda x: (x[1], -x[0]))[0] for f, v in votes.items()}
        if found == flip:
            break
        flip = found
    return {f: 1 for f, n in flip.items() if n}


def decide(
    real: Measure,
    open_: list[Key],
    keys: Iterable[Key],
    factors: dict[Key, int | None],
    asked: Variants,
) -> set[Key]:
    """Settles `open_` (entries of `real`, a census measured: its `copies` and its rolled
    entries' `factors` are updated in place) from the rolled builds; returns those settled.
    `keys`: every entry."""
    keys = list(keys)
    done: set[Key] = set()
    for k in (k for k in open_ if k in real.groups):
        one = asked.iteration(k, asked.depth(real.tree, k))
        found = copies_ratio(own_signature(real, real.region(real.mains[k]), k), one)
        if found is not None:
            factors[k] = found
            done.add(k)
    provisional: dict[Key, int | None] = {}
    full = [k for k in open_ if k not in real.groups]
    for k in sorted(full, key=lambda k: len(real.tree.ancestors(k))):
        found, checked = _full_copies(real, k, factors, asked)
        if found is None:
            continue
        if not checked:
            provisional[k] = real.copies.get(k)
        real.copies[k] = found
        done.add(k)
    # A level with no code of its own stands where a level inside it held in the real build:
    # one the builds settled, or one of a known count its code there bears out over the
    # level's copies (a header's `for k < BK` around `for i < 4` at a call site).
    for k, before in provisional.items():
        inside = [c for c in done if c != k and k in real.tree.around(c) and c not in provisional]
        if not inside and not _borne_out_inside(real, k, keys, factors):
            real.copies[k] = before
            done.discard(k)
    # A count of words the builds could not bear out is no count: 4 words a copy of a float4,
    # or 4 scalar stores merged into one STS.128 (where no build was made, the count stands).
    if asked.made():
        for k in full:
            if k not in done:
                real.copies[k] = None
    return done


def _borne_out_inside(
    real: Measure, key: Key, keys: list[Key], factors: dict[Key, int | None]
) -> bool:
    """Whether a full entry inside `key` (with `key`'s copies in place), of copies known from
    its constant trip count, counts as many in the real build: its own code over the
    executions of its statement, `key`'s copies among them. Every such entry must agree,
    and one at least."""
    inner = [
        c
        for c in keys
        if c != key
        and c not in real.groups
        and key in real.tree.around(c)
        and real.tree.loop(c).trip_count is not None
    ]
    seen = [real.measured_copies(c, factors) for c in inner]
    known = [(c, n) for c, n in zip(inner, seen, strict=True) if n is not None]
    return bool(known) and all(n == real.copies.get(c) for c, n in known)


def _full_copies(
    real: Measure, key: Key, factors: dict[Key, int | None], asked: Variants
) -> tuple[int | None, bool]:
    """(a full entry's copies from the rolled builds, whether the real build's count at its
    own lines bore them out); None where the builds say nothing or the real build disagrees."""
    depth, parent = asked.depth(real.tree, key), real.tree.parent(key)
    copies = asked.copies(key, depth, asked.depth(real.tree, parent) if parent else None)
    if copies is None:
        return None, False
    where = real.runs(key, {**factors})
    own = own_signature(real, real.region(where[1]), key) if where else None
    if not own:
        return copies, False
    assert where is not None
    p = copies_ratio(own, asked.iteration(key, depth))
    if p != copies * where[0]:
        return None, False
    return copies, True
