"""Classify what changed between two compiles of a kernel: significant, benign or unclear.

Input: each side's facts (report/facts.row_values: registers, spills, shared memory, occupancy,
widths, tensor-core path, loop factors, issue cycles per trip) and its normalised listing
(report/normalize.normalize_sass). Output: one Verdict per change, each with the rule that
decided it and its evidence lines. The rules are written out below and in docs/toolchains.md;
no model, no threshold learnt from data. The kernel's verdict is the worst of its changes
(significant > unclear > benign); the same code is no change at all.

The listing comparison tolerates what a scheduler does: registers renamed, labels renumbered,
addresses dropped (normalize_sass), and instructions reordered within a basic block (the
scheduling window here: the code between two labels). Two listings whose blocks hold the same
multiset of instructions, register numbers aside, are "reordered only".

How it can be wrong: the facts are static (issue cycles are the schedule's estimate, not a
measurement); a change no fact covers (another address computation, a predicate) is "unclear",
not "benign", when more than a few instructions differ. ptxas' own subroutines (a division's
slow path, `$__internal_N_$...`) are compared apart, by name: one renamed by another release
would read as one gone and one new.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SIGNIFICANT, UNCLEAR, BENIGN = "significant", "unclear", "benign"
_RANK = {BENIGN: 0, UNCLEAR: 1, SIGNIFICANT: 2}
# Issue cycles per loop trip may move this much (relative) before it counts: the estimate's
# own error on a reschedule is a few percent.
CYCLES_TOLERANCE = 0.10
# ... and this much when the instructions are the same, only reordered: the estimate of a
# reschedule alone moved 14% between 12.9 and 13.5 on examples/tiled.cu (44 -> 50 cycles).
RESCHEDULE_CYCLES_TOLERANCE = 0.25
# A listing change no fact explains is benign up to this share of the instructions.
SMALL_CHANGE = 0.05
_REGISTER = re.compile(r"(?<![\w.$])(UR|UP|R|P|B)[0-9]+(?![\w$])")
# `.reuse` is an operand-cache hint the scheduler sets; it is not the code.
_REUSE = re.compile(r"\.reuse\b")
# The uniform datapath's instructions and registers, and their vector twins: ptxas moves
# warp-uniform arithmetic between the two from release to release.
_UNIFORM_REG = re.compile(r"\bU(R|P)\?")

# Facts whose every change matters to a reader, and why (the rule's words).
_ALWAYS = {
    "spill_bytes": "spills changed: local-memory traffic in the kernel's hot path",
    "shared_bytes": "shared memory per block changed: occupancy and the tiling it implies",
    "occupancy": "occupancy changed (warps per SM the registers and shared memory allow)",
    "occupancy_sweep": "occupancy changed at a block size (the kernel names none: each size "
    "sassview tries)",
    "global_load_bits": "the widest global load changed (vectorisation)",
    "global_store_bits": "the widest global store changed (vectorisation)",
    "tensor": "the tensor-core path changed",
    "cp_async": "the asynchronous copies changed",
    "tma_loads": "the TMA loads changed",
    "loops": "a loop's unroll factor changed",
}


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: str  # SIGNIFICANT | UNCLEAR | BENIGN
    what: str  # the fact ("registers") or "listing"
    before: Any
    after: Any
    rule: str  # why this class, in words
    evidence: tuple[str, ...] = ()  # listing lines (- before, + after) that show it


@dataclass(frozen=True, slots=True)
class Classified:
    verdicts: tuple[Verdict, ...]

    @property
    def kind(self) -> str:
        """The worst verdict's class; "same" when nothing changed."""
        if not self.verdicts:
            return "same"
        return max((v.kind for v in self.verdicts), key=_RANK.__getitem__)


def _shape(line: str) -> str:
    """An instruction as the comparison sees it: register numbers and .reuse dropped."""
    return _REUSE.sub("", _REGISTER.sub(r"\1?", line.strip()))


def _vector_twin(shape: str) -> str:
    """ULEA UR?, UR?, ... -> LEA R?, R?, ...; S2UR -> S2R; ULDC -> LDC."""
    text = re.sub(r"^((?:@!?U?P\?\s+)?)S2UR\b", r"\1S2R", shape)
    text = re.sub(r"^((?:@!?U?P\?\s+)?)U(?=[A-Z]{2})", r"\1", text)
    return _UNIFORM_REG.sub(r"\1?", text).replace("URZ", "RZ").replace("UPT", "PT")


_OPERANDS = re.compile(r"^((?:@!?U?P[?T]\s+)?\S+)(.*)$")
_NUMBER = re.compile(r"-?\b(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:e[+-]?\d+)?)\b")


def _without_numbers(shape: str) -> str:
    """The instruction with the numbers of its operands (not of its opcode) masked."""
    match = _OPERANDS.match(shape)
    if match is None:
        return shape
    return match.group(1) + _NUMBER.sub("#", match.group(2))


def _blocks(listing: str) -> list[Counter[str]]:
    """Each basic block's instructions (register numbers dropped), as a multiset."""
    blocks: list[Counter[str]] = [Counter()]
    for line in listing.splitlines():
        text = line.strip()
        if not text:
            continue
        if text.endswith(":"):  # a label starts a block
            blocks.append(Counter())
            continue
        blocks[-1][_shape(text)] += 1
    return blocks


def _changed_lines(a: str, b: str) -> tuple[list[str], list[str]]:
    """The instructions (register numbers dropped) only one side has, as multisets."""
    ca = Counter(_shape(x) for x in a.splitlines() if x.strip() and not x.strip().endswith(":"))
    cb = Counter(_shape(x) for x in b.splitlines() if x.strip() and not x.strip().endswith(":"))
    return sorted((ca - cb).elements()), sorted((cb - ca).elements())


def _evidence(
    gone: Sequence[str], new: Sequence[str], pattern: str, most: int = 6
) -> tuple[str, ...]:
    regex = re.compile(pattern)
    shown = [f"- {x}" for x in gone if regex.search(x)][:most]
    return tuple(shown + [f"+ {x}" for x in new if regex.search(x)][:most])


# Which listing lines show each fact's change.
_SHOWS = {
    "spill_bytes": r"\b(STL|LDL)\b",
    "global_load_bits": r"\bLDG\b",
    "global_store_bits": r"\bSTG\b",
    "tensor": r"\b(HMMA|IMMA|HGMMA|WGMMA|UTC\w*MMA|QMMA|DMMA)\b",
    "cp_async": r"\b(LDGSTS|LDGDEPBAR)\b",
    "tma_loads": r"\bUTMA\w*\b|\bUBLKCP\b",
    "shared_bytes": r"\b(LDS|STS)\b",
    "registers": r".",
}


def _cycles_verdict(before: Any, after: Any, reordered: bool) -> Verdict:
    """Issue cycles per trip ("11:238" per loop, in loop order), loops paired by their order
    (two releases attribute a loop to other source lines: 12.9 put one at line 31 that 13.5
    puts at line 28). A rise beyond CYCLES_TOLERANCE is significant (a slower loop, as the
    schedule estimates it); a fall is benign (faster); another number of loops is significant.
    The verdict shows the loop that moved most: `line 71: 153 -> line 71: 191`."""
    pa, pb = _loop_items(before), _loop_items(after)
    if len(pa) != len(pb):
        return Verdict(SIGNIFICANT, "loop_cycles", before, after, "the loops changed in number")
    moves = [
        ((int(y) - int(x)) / int(x), f"line {la}: {x}", f"line {lb}: {y}")
        for (la, x), (lb, y) in zip(pa, pb, strict=True)
        if x.isdigit() and y.isdigit() and int(x)
    ]
    up = max(moves, default=(0.0, before, after))
    down = min(moves, default=(0.0, before, after))
    rise, fall = max(up[0], 0.0), max(-down[0], 0.0)
    tolerance = RESCHEDULE_CYCLES_TOLERANCE if reordered else CYCLES_TOLERANCE
    why = ", the same instructions reordered" if reordered else ""
    if rise > tolerance:
        rule = (
            f"a loop takes {rise:.0%} more issue cycles per trip (more than {tolerance:.0%}{why})"
        )
        return Verdict(SIGNIFICANT, "loop_cycles", up[1], up[2], rule)
    if reordered and rise > CYCLES_TOLERANCE:
        rule = (
            f"a loop takes {rise:.0%} more issue cycles per trip, within {tolerance:.0%}: "
            "the same instructions, only reordered"
        )
        return Verdict(BENIGN, "loop_cycles", up[1], up[2], rule)
    if fall > CYCLES_TOLERANCE:
        rule = (
            f"a loop takes {fall:.0%} fewer issue cycles per trip, none more than "
            f"{CYCLES_TOLERANCE:.0%} more"
        )
        return Verdict(BENIGN, "loop_cycles", down[1], down[2], rule)
    rule = f"issue cycles per trip within {CYCLES_TOLERANCE:.0%} (+{rise:.1%}, -{fall:.1%})"
    return Verdict(BENIGN, "loop_cycles", up[1], up[2], rule)


def _loop_items(text: Any) -> list[tuple[str, str]]:
    """ "11:238 16:full" -> [("11", "238"), ("16", "full")], in loop order."""
    return [(line, value) for line, _, value in (i.partition(":") for i in str(text or "").split())]


def _per_loop(text: Any) -> list[str]:
    """The values of "LINE:VALUE ..." in order, lines dropped ("11:x1 16:full" -> x1, full)."""
    return [item.partition(":")[2] for item in str(text or "").split()]


def classify(
    facts_a: Mapping[str, Any], listing_a: str, facts_b: Mapping[str, Any], listing_b: str
) -> Classified:
    """Each change between side A and side B, classified by the rules above."""
    if listing_a == listing_b and dict(facts_a) == dict(facts_b):
        return Classified(())
    (listing_a, subs_a), (listing_b, subs_b) = _split(listing_a), _split(listing_b)
    gone, new = _changed_lines(listing_a, listing_b)
    verdicts: list[Verdict] = []
    for what, rule in _ALWAYS.items():
        x, y = facts_a.get(what), facts_b.get(what)
        if what == "loops" and _per_loop(x) == _per_loop(y):
            continue  # the same factors, attributed to other lines
        if x != y:
            proof = _evidence(gone, new, _SHOWS.get(what, r"$^"))
            verdicts.append(
                Verdict(SIGNIFICANT, what, facts_a.get(what), facts_b.get(what), rule, proof)
            )
    if facts_a.get("registers") != facts_b.get("registers"):
        same_occupancy = all(
            facts_a.get(k) == facts_b.get(k) for k in ("occupancy", "occupancy_sweep")
        )
        verdicts.append(
            Verdict(
                BENIGN if same_occupancy else SIGNIFICANT,
                "registers",
                facts_a.get("registers"),
                facts_b.get("registers"),
                "registers changed, occupancy did not"
                if same_occupancy
                else "registers changed, and with them the occupancy",
            )
        )
    if facts_a.get("loop_cycles") != facts_b.get("loop_cycles"):
        reordered = listing_a != listing_b and _blocks(listing_a) == _blocks(listing_b)
        cycles = facts_a.get("loop_cycles"), facts_b.get("loop_cycles")
        verdicts.append(_cycles_verdict(cycles[0], cycles[1], reordered))
    explained = any(v.kind == SIGNIFICANT for v in verdicts)
    verdicts.append(_listing_verdict(listing_a, listing_b, gone, new, explained))
    verdicts += _subroutine_verdicts(subs_a, subs_b)
    return Classified(tuple(v for v in verdicts if v.what != "listing" or v.rule))


# ptxas' own subroutines (the slow paths of IEEE division, square root, integer division):
# nvdisasm labels them `$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath` after the body.
_PTXAS_SUBROUTINE = re.compile(r"^\$__internal_\d+_(\$\S+):$")


def _split(listing: str) -> tuple[str, dict[str, str]]:
    """(the kernel's own code, {ptxas subroutine name: its code}); the number nvdisasm gives
    each subroutine is dropped from its name (another release numbers them otherwise)."""
    body: list[str] = []
    subs: dict[str, list[str]] = {}
    current = body
    for line in listing.splitlines():
        match = _PTXAS_SUBROUTINE.match(line.strip())
        if match:
            current = subs.setdefault(match.group(1), [])
            continue
        current.append(re.sub(r"\$__internal_\d+_", "$__internal_", line))
    return "\n".join(body), {name: "\n".join(lines) for name, lines in subs.items()}


def _subroutine_verdicts(a: dict[str, str], b: dict[str, str]) -> list[Verdict]:
    """A ptxas subroutine is compared apart from the kernel: a change inside one is benign (a
    slow path, taken for special values only); one that appears or goes is unclear (the body's
    CALL says which)."""
    found = []
    for name in sorted(set(a) | set(b)):
        what = f"ptxas subroutine {name}"
        if name not in a or name not in b:
            side = "B" if name in b else "A"
            found.append(Verdict(UNCLEAR, what, name in a, name in b, f"only side {side} has it"))
            continue
        if a[name] == b[name]:
            continue
        gone, new = _changed_lines(a[name], b[name])
        rule = f"{max(len(gone), len(new))} instructions of this slow path differ"
        found.append(Verdict(BENIGN, what, len(gone), len(new), rule, _evidence(gone, new, ".", 4)))
    return found


def _listing_verdict(a: str, b: str, gone: list[str], new: list[str], explained: bool) -> Verdict:
    """The code itself: reordered only, a small change, or a change no fact explains."""
    if a == b:
        return Verdict(BENIGN, "listing", 0, 0, "")
    count = max(len(a.splitlines()), len(b.splitlines()), 1)
    if _blocks(a) == _blocks(b):
        return Verdict(
            BENIGN,
            "listing",
            count,
            count,
            "reordered within basic blocks only (the scheduler's window)",
        )
    twins_gone, twins_new = Counter(map(_vector_twin, gone)), Counter(map(_vector_twin, new))
    moved = sum((twins_gone & twins_new).values())
    gone = sorted((twins_gone - twins_new).elements()) if moved else gone
    new = sorted((twins_new - twins_gone).elements()) if moved else new
    if moved and not gone and not new:
        return Verdict(
            BENIGN,
            "listing",
            moved,
            moved,
            f"{moved} instructions moved between the uniform and vector datapaths",
        )
    if gone and Counter(map(_without_numbers, gone)) == Counter(map(_without_numbers, new)):
        return Verdict(
            BENIGN,
            "listing",
            len(gone),
            len(new),
            f"{len(gone)} instructions differ in their immediates or constant offsets only",
            _evidence(gone, new, r".", 4),
        )
    changed = max(len(gone), len(new))
    share = changed / count
    proof = _evidence(gone, new, r".", 4)
    if share <= SMALL_CHANGE or explained:
        rule = f"{changed} of {count} instructions differ" + (
            ", as the facts above say" if explained else f" (at most {SMALL_CHANGE:.0%})"
        )
        return Verdict(BENIGN, "listing", len(gone), len(new), rule, proof)
    return Verdict(
        UNCLEAR,
        "listing",
        len(gone),
        len(new),
        f"{changed} of {count} instructions differ and no fact says why",
        proof,
    )


def explain(classified: Classified, *, evidence: int = 6) -> list[str]:
    """The verdicts as text: one line each (class, fact, before -> after, rule), then up to
    `evidence` of its evidence lines, indented."""
    lines = []
    for v in sorted(classified.verdicts, key=lambda v: -_RANK[v.kind]):
        change = f"{v.before} -> {v.after}" if v.what != "listing" else "the code"
        lines.append(f"{v.kind:<11} {v.what}: {change}: {v.rule}")
        lines += [f"              {e}" for e in v.evidence[:evidence]]
    return lines
