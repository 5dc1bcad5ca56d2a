"""How many copies a set of counts says: the census counts (opcode, location, weight kind)
pairs over one trip of a loop or over straight-line code, and a factor or a copy count is a
ratio between such counts. Apart from the measuring because these are the rules of evidence
(which pairs to trust, how a most common ratio is chosen, why math and memory err in opposite
directions), pure functions of counts that can be read and argued about without the CFG.
"""

from __future__ import annotations

from collections import Counter

from sassview.analyses.loops.tree import Key
from sassview.analyses.tile_loops import divides_most
from sassview.ir import SourceLoc

Pair = tuple[str, SourceLoc, int]  # (opcode, location, weight kind: see weights.weight)
Counts = Counter[tuple[Pair, Key]]  # (pair, entry) -> weighted count


def copies_of(counts: Counts) -> int | None:
    """Copies of straight-line code: what its math says, or its memory accesses where the
    math finds no repeat (1). Math errs low where the first copy folds into constants (`a =
    1; a = a*x + 1` is an FADD, then FFMAs); memory errs high where a line reads two arrays
    (sgemm's `As[ty][k] * Bs[k][tx]`: 16 FFMA, but 16 LDS and 4 LDS.128 of 4 words, 32) and
    low where copies share loads of invariant or neighbouring elements."""
    found = [
        divides_most(list(chosen.values()))
        for kind in (2, 1)
        if (chosen := Counter({p: n for p, n in counts.items() if p[0][2] == kind}))
    ]
    if not found:
        return divides_most(list(counts.values())) if counts else None
    return found[0] if found[0] > 1 else max(found)


def pool(counts: Counts) -> Counts:
    """The pairs to trust: float or tensor math if any, else memory, else all. Math depends on
    the iteration; a load of an invariant or neighbouring element is often shared by copies."""
    for kind in (2, 1):
        chosen = Counter({p: n for p, n in counts.items() if p[0][2] == kind})
        if chosen:
            return chosen
    return counts


def ratio(counts: Counts, ref: Counts) -> int | None:
    """The most common whole ratio of `counts` to `ref` over the pairs both have."""
    ratios = Counter(counts[k] // ref[k] for k in counts if k in ref and counts[k] % ref[k] == 0)
    return max(ratios, key=lambda r: (ratios[r], r)) if ratios else None


def steady_ratio(counts: Counts, ref: Counts, whole: tuple[Counts, Counts]) -> int | None:
    """`ratio` of two SASS loops of one statement (a main loop to its remainder), where most
    shared pairs agree on it; else the ratio of their counts per opcode, all locations of the
    rolled entry summed (its nested entries' too). ptxas' line table moves instructions of
    one statement between nearby lines (the HGMMA of an inline asm wgmma carry the fence's
    line in one copy, the asm's in another), never between opcodes: a K loop of 16 HGMMA
    over a remainder of 4 is 4, though no single line's counts divide. `whole`: the two
    loops' counts with the statement's own lines (an HGMMA given the `for` line's row is
    still one)."""
    r = ratio(counts, ref)
    shared = [k for k in counts if k in ref]
    agree = sum(1 for k in shared if r is not None and counts[k] == r * ref[k])
    # An opcode both loops hold, found in one at a line the other lacks: the line table moved
    # some of its copies (CUDA 13.5's K loop: 4 HGMMA at the asm's line in both loops, 8 more
    # at the `for` line's row in the main one only), so only the per-opcode sums can tell.
    moved = {k[0][0] for k in counts if k not in ref} & {k[0][0] for k in ref}
    if r is not None and 2 * agree > len(shared) and not moved:
        return r
    return ratio(_by_opcode(whole[0]), _by_opcode(whole[1]))


# Where a count summed over an entry's lines and the entries inside it is kept
_ANYWHERE: tuple[SourceLoc, Key] = (SourceLoc("", 0), ("", -1, ()))


def _by_opcode(counts: Counts) -> Counts:
    out: Counts = Counter()
    loc, key = _ANYWHERE
    for ((op, _, kind), _k), n in counts.items():
        out[((op, loc, kind), key)] += n
    return out
