"""The loop census of a CUDA C++ kernel: one entry per loop statement per inline context.

All architectures. Each file the line table names (the main file and every header it
includes) is scanned for its loop statements (`files.SourceFiles`); the entries' words and
findings are in `findings`. Each SASS instruction belongs to the innermost loop statement its
inline chain passes through: its own frame if that line lies in a loop, else the call site it
was inlined at, and so on out. The statement and the call sites outside it make the key of an
entry (`tree.Key`): a helper inlined at two call sites gives two entries, its loops nest in the
loop around each call.

Each SASS loop (graph/loops.py) goes to the deepest entry holding all its code (the lowest
common ancestor of its instructions' entries), or to the statement its back-edge compare names
when that one encloses it; an entry whose loop a nested SASS loop took already yields to its
parent. An entry with SASS loops is `rolled`; with code and none, `full`; a loop statement
inside an entry with code and none of its own, `gone`.

The factor of a rolled entry: with several SASS loops, the smallest is NVVM's remainder loop of
one iteration a trip, and the main loop's factor is the most common ratio of its (opcode,
location) counts to that one's. With one, straight-line copies beside it mark a remainder, and
give the factor when they are one iteration's worth; failing that each count is divided by the
copies of the full loops between the entry and the code counted (the 64 FFMA of an 8x8 nest
inside a K loop are one iteration of it), and the factor is the largest number dividing most
of them. The same measure over the PTX CFG and its .loc chains gives NVVM's factor
(`ptx_factor`). The copies of a full entry are its trip count when the header is constant,
else its own code's counts over the executions of its statement (the copies and factors of the
entries around it).

Some code is placed but not counted (`listing`): the copy of warp-level code ptxas makes
for a diverged warp (`BRA.DIV`'s fallback, graph/divergence.py: cooperative groups' `reduce`
in a branch is 5 shuffle steps on the fast path, and the fallback is named on the entry, not
counted), ptxas' subroutines with no line of their own (the division slow path, which the line
table gives the row before it), and YIELD hints (whatever row was in force). A SHFL counts
with memory, one per step of a butterfly whose combine may be a compare and select.

Code is placed by its inline chain as the PTX gives it (`listing.chained_sources`): ptxas' line
table gives the code of two call sites of one helper (two identical calls, two instantiations
of a template) the first site's chain, the PTX instruction each SASS instruction came from has
its own; and it starts no row where only the file changes (a header loop on line 4 inlined at
a call on line 4 reads as the call's line), the PTX's `.loc` has the header. Two calls of one
helper on one line are one inline context in both (no columns tell them apart): their
statement's copies are its trip count, or unknown (`SourceFiles.merged`). How it can be
wrong: code ptxas moved to another line than its PTX instruction's keeps
ptxas' chain. A loop with one SASS loop, no remainder and every body statement of k > 1
instructions of one opcode reads k times its factor. A constant trip count is trusted over the
SASS (a loop whose copies ptxas folded still reads its trip count). Peeled iterations read as a
straight-line remainder. Source lines are found by a line scan (macros and lambdas confuse it);
see `files` for how a header can be misread. A loop in a `__noinline__` function has no PTX
factor (its PTX is another function).

Where the counting leaves an entry open (no number, a float4 copy counted by its words, an
unroll read with nothing left over), the census asks the compiler: the source compiled again
with one loop level in two rolled (`rolled`, `settle`); what that settles says so
(`decided_by`).

The parts: `tree` (the entries and where each instruction sits in them), `listing` (what is
measured, the SASS or the PTX, and the code never counted), `weights` (what an instruction
weighs), `measure` (each loop's entry, one trip's counts, the factors and copies), `ratios`
(copies from counts); here, the census itself: the entries in order with their words, NVVM's
factors beside ptxas', the diverged-warp fallbacks and a butterfly's steps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from sassview.analyses.base import AnalysisContext, Annotation, Findings
from sassview.analyses.loops.entry import LoopEntry, UnrollFacts
from sassview.analyses.loops.files import SourceFiles
from sassview.analyses.loops.findings import describe
from sassview.analyses.loops.listing import chained_sources, ptx_listing, sass_listing
from sassview.analyses.loops.measure import Measure
from sassview.analyses.loops.overrides import override_note, overrides
from sassview.analyses.loops.rolled import DECIDED_BY, Variants
from sassview.analyses.loops.settle import decide, flips, open_entries
from sassview.analyses.loops.tree import Key, Sites, Tree
from sassview.analyses.loops.weights import SHUFFLES
from sassview.analyses.tensor_cores import path_of
from sassview.graph.loops import Loop
from sassview.ir import OperandKind, SourceLoc
from sassview.parse.inline_asm import CallSites

# What a rolled entry's factor was read from: (main SASS loop, remainder loops, straight-line
# remainder beside the main loop)
_Measured = tuple[Loop, list[Loop], bool]


def run(ctx: AnalysisContext) -> Findings:
    locs = {src for src in ctx.shared(chained_sources) if src is not None}
    files = SourceFiles(ctx, {f.file for loc in locs for f in loc.frames()})
    found = Census(ctx, files).findings()
    art = ctx.program.artifacts
    texts = {f: files.text(f) for f in files.macros.history if f}
    lost = overrides(files.macros.overrides, art.compile_log, art.options, texts)
    return Findings(found.facts, found.annotations + tuple(map(override_note, lost)))


class Census(Measure):
    """The entries of the SASS, with NVVM's factors from the PTX beside them."""

    def __init__(self, ctx: AnalysisContext, files: SourceFiles) -> None:
        self.ctx = ctx
        self.nvvm: dict[Key, int | None] = {}  # NVVM's factors (the PTX loops')
        self.diverged: dict[Key, tuple[int, ...]] = {}  # see `fallbacks_of`
        self.factors: dict[Key, int | None] = {}  # the SASS loops'
        self.decided: set[Key] = set()  # what the rolled build settled (loops/rolled.py)

        ptx = ctx.program.ptx
        self.asm = CallSites(ptx.inline_asm if ptx else ())
        super().__init__(sass_listing(ctx, files), Tree(files), self.asm)

    def findings(self) -> Findings:
        keys, gone = self._keys()
        measured = self._measure_entries(keys)
        self.decided = self._ask_the_compiler(keys, measured)
        order = sorted(keys | gone, key=self._order)
        index = {k: n for n, k in enumerate(order)}
        entries: list[LoopEntry] = []
        notes: list[Annotation] = []
        for k in order:
            entry = self._entry(k, index, self.factors, measured, k in gone)
            entries.append(entry)
            if k in measured:
                main, rest, _ = measured[k]
                notes += describe(entry, main.addresses, rest)
            else:
                notes += describe(entry, self.code_of(k), [])
        loose = numbered(
            [_loose(lp, self._chain(lp), self.retries, self.waits) for lp in self.loose]
        )
        for lp, entry in zip(self.loose, loose, strict=True):
            entries.append(entry)
            notes += describe(entry, lp.addresses, [])
        return Findings(
            facts=UnrollFacts(loops=[e.to_json() for e in entries], entries=tuple(entries)),
            annotations=tuple(notes),
        )

    def _keys(self) -> tuple[set[Key], set[Key]]:
        """(the entries with code or SASS loops and every entry around them, the `gone` ones:
        loop statements directly inside those that have neither)."""
        keys = {k for k in self.key if k is not None} | set(self.groups)
        for k in list(keys):
            keys.update(self.tree.ancestors(k))
        gone = {
            (f, j, sites)
            for f, i, sites in keys
            for j, s in enumerate(self.files.loops(f))
            if s.parent == i and (f, j, sites) not in keys
        }
        return keys, gone

    def _measure_entries(self, keys: set[Key]) -> dict[Key, _Measured]:
        """Measures `keys`: the rolled entries' factors, deepest first, then the copies of the
        full entries with no constant trip count, outermost first (read over the copies and
        factors around them), then NVVM's factors and the fallbacks. Returns what each rolled
        entry's factor was read from."""
        self.copies = {k: self.tree.loop(k).trip_count for k in keys if k not in self.groups}
        factors: dict[Key, int | None] = {}
        measured: dict[Key, _Measured] = {}
        for k in sorted(self.groups, key=lambda k: -len(self.tree.ancestors(k))):
            f, main, rest, straight = self.factor(k, self.groups[k], self.copies)
            factors[k], self.mains[k] = f, main
            measured[k] = (main, rest, straight)
        for k in sorted(keys - set(self.groups), key=lambda k: len(self.tree.ancestors(k))):
            if self.copies[k] is None:
                self.copies[k] = self.measured_copies(k, factors)
        self.factors = factors
        self.nvvm = self._nvvm_factors()
        self.diverged = self.fallbacks_of()
        return measured

    def _ask_the_compiler(self, keys: set[Key], measured: dict[Key, _Measured]) -> set[Key]:
        """The entries the counting left open, settled by the rolled build where it can
        (loops/rolled.py); NVVM's factors are re-read for the factors it changed."""
        remainders = {k: bool(m[1]) or m[2] for k, m in measured.items()}
        order = sorted(keys, key=self._order)
        single = [k for k, m in measured.items() if not m[1]]  # no remainder loop beside
        open_ = open_entries(self, order, self.factors, remainders, single)
        # two calls on one line are one inline context in the rolled builds too
        open_ = [k for k in open_ if not self.files.merged(*k)]
        if not open_:
            return set()
        asked = Variants(self.ctx, flips(self, order, self.files.main))
        done = decide(self, open_, order, self.factors, asked)
        if done & set(self.groups):
            self.nvvm = self._nvvm_factors()
        for k in done & set(self.groups):  # a factor the builds raised: its straight remainder
            main, rest, straight = measured[k]
            if not rest and not straight and (self.factors.get(k) or 1) > 1:
                measured[k] = (main, rest, self.beside(k, main))
        return done

    def _nvvm_factors(self) -> dict[Key, int | None]:
        """NVVM's side: the factor of each rolled entry's PTX loop, measured alike. For CUDA
        C++ NVVM unrolls and marks the loop nounroll; where ptxas unrolls again (sm_100 and
        later), the SASS factor is the product."""
        listing = ptx_listing(self.ctx) if self.groups else None
        if listing is None or not listing.loops:
            return {}
        ptx = Measure(listing, self.tree, self.asm)
        out = {}
        for k in sorted(ptx.groups, key=lambda k: -len(self.tree.ancestors(k))):
            if k in self.groups:
                n = ptx.factor(k, ptx.groups[k], self.copies)[0]
                f = self.factors.get(k)
                # ptxas adds copies, it never takes NVVM's away: a PTX factor that does not
                # divide the SASS one was misread (a PTX statement of many instructions).
                out[k] = n if n and f and f % n == 0 else None
        return out

    def _chain(self, loop: Loop) -> tuple[SourceLoc, ...]:
        """The call sites of a loop no statement explains (an inline asm wait loop in a helper):
        those of its first instruction at the loop's own line."""
        src, ins = loop.source, self.ctx.kernel.instructions
        if src is None:
            return ()
        inside = set(loop.addresses)
        for i, at in enumerate(self.sources):
            here = at is not None and (at.file, at.line) == (src.file, src.line)
            if here and at is not None and ins[i].address in inside:
                return tuple(at.frames())[1:]
        return ()

    def measured_copies(self, key: Key, factors: dict[Key, int | None]) -> int | None:
        """`Measure.measured_copies`, corrected by the statement's shuffles: a butterfly's
        steps each shuffle by their own lane offset (`shuffle_steps`), so a count k times the
        steps, with k shuffles of each offset a run, is k values reduced in one loop (a
        float2: 10 FADD on one line for 5 steps), not 5k copies. Other counts stand: the
        shuffles can miss a step ptxas folded or gave another inline chain (a Welford
        triple's, beside a float2's, shows 4 offsets of its 5 steps). None for a statement two
        calls on one line hold (`SourceFiles.merged`): the count is both calls'."""
        if self.files.merged(*key):
            return None
        found = super().measured_copies(key, factors)
        where = self.runs(key, factors)
        shuffles = self.shuffle_steps(self.region(where[1]), key) if where else None
        if shuffles is None or found is None or where is None:
            return found
        steps, each = shuffles
        k, rest = divmod(found, steps)
        return steps if k > 1 and not rest and each == k * where[0] else found

    def shuffle_steps(self, indices: Iterable[int], key: Key) -> tuple[int, int] | None:
        """(distinct lane offsets, shuffles of each) of the entry's own SHFL.BFLY/DOWN/UP
        among `indices`, when there are two or more offsets, each as often as the others, and
        all immediates (a butterfly unrolled: 0x10, 0x8, 0x4, 0x2, 0x1); else None."""
        offsets: Counter[int | float] = Counter()
        ins = self.ctx.kernel.instructions
        for i in indices:
            x = ins[i]
            if x.opcode != "SHFL" or self.key[i] != key or i in self.uncounted:
                continue
            if SHUFFLES.isdisjoint(x.modifiers) or len(x.operands) < 4:
                continue
            offset = x.operands[3].value
            if x.operands[3].kind is not OperandKind.IMMEDIATE or offset is None:
                return None  # a lane offset known only at run time
            offsets[offset] += 1
        counts = set(offsets.values())
        if len(offsets) < 2 or len(counts) > 1:
            return None
        return len(offsets), counts.pop()

    def code_of(self, key: Key) -> tuple[int, ...]:
        """The addresses of the code of an entry and of the entries inside it."""
        ins, skip = self.ctx.kernel.instructions, self.uncounted
        return tuple(
            ins[i].address
            for i, k in enumerate(self.key)
            if k is not None and i not in skip and key in self.tree.around(k)
        )

    def fallbacks_of(self) -> dict[Key, tuple[int, ...]]:
        """Entry -> the first addresses of the diverged-warp copies of its code: each copy
        goes to the deepest entry holding all of its placed code."""
        out: dict[Key, tuple[int, ...]] = {}
        for f in self.listing.fallbacks:
            k = self.tree.lca(k for i in f.instructions if (k := self.key[i]) is not None)
            if k is not None:
                out[k] = (*out.get(k, ()), f.first_address)
        return out

    def _tensor_ops(self, addresses: Iterable[int]) -> int:
        """The MMA instructions (HMMA, HGMMA, UTC*MMA: `tensor_cores.path_of`) among
        `addresses`: a full entry's own code (4 HGMMA of a fully unrolled k-step loop), or one
        trip of a rolled entry's main SASS loop."""
        ops = self._opcodes
        return sum(1 for a in addresses if path_of(ops.get(a, "")) is not None)

    def _span(self, code: tuple[int, ...], key: Key) -> list[int]:
        """The addresses from the first to the last of a full entry's `code`, but those in a
        SASS loop holding none of it and those of another entry's body: ptxas' line table
        gives one HGMMA of an unrolled k-step the next statement's row (the `for` of the K
        loop after it), and the copies' MMAs are the ones between; the HMMA of a loop's
        mma_sync scheduled between a load loop's copies are the mma loop's, not the load
        loop's. How it can be wrong: straight-line code a rolled loop's line gives, scheduled
        between the copies, is counted with them."""
        if not code:
            return []
        mine = set(code)
        foreign = {
            a for lp in self.ctx.loops if mine.isdisjoint(lp.addresses) for a in lp.addresses
        }
        first, last = code[0], code[-1]
        return [
            i.address
            for n, i in enumerate(self.ctx.kernel.instructions)
            if first <= i.address <= last
            and i.address not in foreign
            and (i.address in mine or not self._others_body(n, key))
        ]

    def _others_body(self, index: int, key: Key) -> bool:
        """Whether instruction `index` is the code of another full entry beside `key` (neither
        inside it nor around it): that entry's own copies; or of a full entry around `key`,
        its own statements between `key`'s copies (the peeled first k-step's HGMMA before a
        `for (k = 1; ...)` loop of three in the m loop around both). A rolled entry's line
        outside its SASS loops is where ptxas put what it moved (the peeled tile's HGMMA on
        the K loop's row)."""
        k = self.key[index]
        if k is None or k in self.groups or k == key:
            return False
        return key not in self.tree.around(k)

    @property
    def _opcodes(self) -> dict[int, str]:
        if not hasattr(self, "_opcode_at"):
            self._opcode_at = {i.address: i.opcode for i in self.ctx.kernel.instructions}
        return self._opcode_at

    def _order(self, key: Key) -> tuple[bool, str, int, Sites]:
        s = self.tree.loop(key)
        return (key[0] != self.files.main, key[0], s.line, key[2])

    def _entry(
        self,
        key: Key,
        index: dict[Key, int],
        factors: dict[Key, int | None],
        measured: dict[Key, _Measured],
        gone: bool,
    ) -> LoopEntry:
        common = self._common(key, index, gone)
        if gone:
            return LoopEntry(kind="gone", **common)  # type: ignore[arg-type]
        if key in measured:
            return self._rolled(key, factors[key], measured[key], common)
        code = self.code_of(key)
        return LoopEntry(
            kind="full",
            copies=self.copies.get(key),
            first_address=code[0] if code else None,
            instructions=len(code),
            tensor_ops=self._tensor_ops(self._span(code, key)),
            **common,  # type: ignore[arg-type]
        )

    def _common(self, key: Key, index: dict[Key, int], gone: bool) -> dict[str, object]:
        """The fields every kind of entry has: its statement, place, nesting and fallbacks
        (`index`: each entry's position in the census, for its parent's)."""
        s = self.tree.loop(key)
        up = s.parent if s.parent is not None else -1
        parent = self.tree.parent(key) if not gone else (key[0], up, key[2])
        return {
            "line": s.line,
            "file": key[0],
            "trip_count": s.trip_count,
            "requested": s.requested,
            "requested_by": s.requested_by,
            "inlined_at": self.tree.sites.get(key, ()),
            "depth": len(self.tree.ancestors(parent)) + 1 if parent else 1,
            "parent": index.get(parent) if parent else None,
            "fallbacks": self.diverged.get(key, ()),
            "decided_by": DECIDED_BY if key in self.decided else "count",
        }

    def _rolled(
        self, key: Key, factor: int | None, measured: _Measured, common: dict[str, object]
    ) -> LoopEntry:
        """A rolled entry: its main SASS loop, the versions beside it and its remainders."""
        main, rest, straight = measured
        return LoopEntry(
            kind="rolled",
            factor=factor,
            ptx_factor=self.nvvm.get(key),
            remainder=bool(rest) or straight,
            sass_loops=(main.index, *(lp.index for lp in self.versions.get(key, ()))),
            remainder_loops=tuple(lp.index for lp in rest),
            back_edges=main.back_edges,
            blocks=tuple(sorted(main.blocks)),
            first_address=main.first_address,
            instructions=len(main.addresses),
            tensor_ops=self._tensor_ops(main.addresses),
            **common,  # type: ignore[arg-type]
        )


def numbered(loose: list[LoopEntry]) -> list[LoopEntry]:
    """The loops of no statement, each among the others at its place (line, file, call sites)
    numbered in address order (`ordinal`), so that no two read as one loop said twice."""
    places: dict[tuple[object, ...], list[LoopEntry]] = {}
    for e in loose:
        places.setdefault((e.line, e.file, e.inlined_at, e.unexplained), []).append(e)
    ordinal: dict[int, tuple[int, int]] = {}
    for alike in (v for v in places.values() if len(v) > 1):
        ranked = sorted(alike, key=lambda e: (e.first_address is None, e.first_address or 0))
        ordinal.update({id(e): (n, len(ranked)) for n, e in enumerate(ranked, 1)})
    return [replace(e, ordinal=ordinal[id(e)]) if id(e) in ordinal else e for e in loose]


def _loose(
    loop: Loop, sites: tuple[SourceLoc, ...], retries: dict[int, str], waits: dict[int, str]
) -> LoopEntry:
    src = loop.source
    return LoopEntry(
        line=src.line if src else None,
        file=src.file if src else None,
        inlined_at=sites,
        kind="rolled",
        factor=None,
        statement=False,
        depth=loop.depth,
        sass_loops=(loop.index,),
        back_edges=loop.back_edges,
        blocks=tuple(sorted(loop.blocks)),
        first_address=loop.first_address,
        instructions=len(loop.addresses),
        spin=retries.get(loop.index),
        waits=waits.get(loop.index),
    )
