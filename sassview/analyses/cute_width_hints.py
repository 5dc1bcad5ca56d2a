"""The CuTe DSL's words for narrow global accesses, chosen by what made them narrow.

Read from the SASS of an elementwise kernel written the way the CUTLASS examples write one
(tests/data/frontends/cute_elementwise.py, sm_90a, fp32, 4 contiguous elements a thread):

- A copy atom left at its default width (`make_copy_atom(CopyUniversalOp(), dtype)`) moves one
  element: 32-bit LDG.E/STG.E, four at consecutive offsets of one base, unpredicated or all
  under one predicate. A 128-bit atom (`num_bits_per_copy=128`) makes them LDG.E.128.
- A predicate tensor with one flag per element (`make_rmem_tensor(thrCrd.shape, Boolean)`
  filled by `elem_less` per element) puts each of those four accesses under its own predicate
  (`@!P4 [R40.64]`, `@!P3 [R40.64+0x4]`, `@!P5 [R40.64+0x8]`, ...). There the 128-bit atom
  alone does not compile ("'cute.copy' op expects pred to have compatible shape with:
  (4,(1,1)) but got actual predShape: ((4,4),(1,1))"): the predicate must have one flag per
  atom (each atom's first element, `thrCrd[(0, None), None, None]`), which is exact when a
  row's length is a multiple of the vector (a fake tensor's `divisibility=4`). With both, the
  kernel's 32 + 16 accesses become 8 LDG.E.128 and 4 STG.E.128.

Both are source changes: `sassview try` cannot apply them, and the hints say so. The tests
compile the changed kernel and check that the accesses become 128 bits wide.

How it can be wrong: "per-element predicate" is read off the guards: accesses at adjacent
offsets of one base under different predicates. Predicates that differ for another reason (a
kernel that guards each element by a mask it loads) read the same; the advice still holds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from sassview.analyses.base import Annotation
from sassview.analyses.memory import MemoryAccess, base_text

# The plain hints are the frontend's vocabulary (frontends/specs/cute.py): one wording.
from sassview.frontends.specs.cute import MERGE_HINT, NARROW_HINT, UNVERIFIED
from sassview.ir import SourceLoc

PREDICATE_HINT = (
    "each element is loaded or stored under its own predicate (a predicate tensor with one "
    "flag per element), so no copy can be wider than one element; predicate each copy atom "
    "instead, on its first element (`thrCrd[(0, None), None, None]` for the predicate "
    "tensor's shape), which is exact when rows are a multiple of the vector (`divisibility=` "
    "on the fake tensor's row length), and copy with a 128-bit atom (`num_bits_per_copy=128`): "
    "the 128-bit atom with the per-element predicate does not compile "
    f"(`expects pred to have compatible shape`) {UNVERIFIED}"
)


def revised(
    notes: Iterable[Annotation],
    found: Sequence[MemoryAccess],
    locs: Sequence[SourceLoc | None],
) -> list[Annotation]:
    """The narrow-access and merge-candidate notes, each with the hint for its cause, read
    from every access on the note's source lines (`locs`: each access' user line)."""
    import dataclasses

    by_line: dict[tuple[str, int], list[MemoryAccess]] = {}
    for access, loc in zip(found, locs, strict=True):
        if loc is not None:
            by_line.setdefault((loc.file, loc.line), []).append(access)
    out = []
    for note in notes:
        if note.kind not in ("narrow-access", "merge-candidate"):
            out.append(note)
            continue
        lines = {(s.file, s.line) for s in note.source}
        if element_predicated(a for line in lines for a in by_line.get(line, ())):
            hint = PREDICATE_HINT
        else:
            hint = NARROW_HINT if note.kind == "narrow-access" else MERGE_HINT
        out.append(dataclasses.replace(note, hint=hint))
    return out


def element_predicated(accesses: Iterable[MemoryAccess]) -> bool:
    """Whether two global accesses of one direction at adjacent offsets of one base register
    (one element apart) run under different predicates."""
    groups: dict[tuple[str, str], list[tuple[int, int, str]]] = {}
    for a in accesses:
        ins, operand = a.instruction, a.operand
        if a.space != "global" or operand is None or not isinstance(a.bits, int):
            continue
        guard = f"{'!' if ins.guard_negated else ''}{ins.guard}" if ins.guard else ""
        key = (base_text(operand), a.direction)
        groups.setdefault(key, []).append((operand.offset or 0, a.bits // 8, guard))
    for items in groups.values():
        items.sort()
        for (offset, size, guard), (next_offset, _, next_guard) in itertools.pairwise(items):
            if next_offset == offset + size and guard != next_guard:
                return True
    return False
