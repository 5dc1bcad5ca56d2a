"""The facts records of the tensor-core, schedule and ptxas-advisory analyses, apart from the
analyses that make them (as records.py holds eight others'; records_memory.py three more), and
the words a schedule row is read in where the loop census renames its loop (`placed_text`).

A warm run unpickles each kernel's Inspection and runs no analysis: unpickling a record imports
the module that defines it, and the report layer imports the records to read them. Here that
is this light module, not the analyses with their helpers (tensor_cores' regexes and the
tcgen05 descriptor decoder, the schedule's loop graph). Each analysis imports its record from
here and documents its facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

from sassview.analyses.facts import Facts, Pair, Results, Row, once_each


# tensor_cores.py: the matrix-multiply path, with shapes and types
class _DecodedExtra(TypedDict, total=False):
    """The keys of `Decoded` only some ops have (Python 3.10 has no NotRequired)."""

    scale: str  # the scale-factor type of a block-scaled op (OMMA.SF ... .E8)
    # tcgen05 alone (_descriptor_shape):
    kind: str | None  # the PTX kind::
    cta_group: int  # 1, or 2 for .cta_group::2 (UTC*MMA.2CTA)
    descriptor: str | None  # the constant instruction descriptor, hex; None: unknown
    sparse: bool  # where the descriptor decodes


class Decoded(_DecodedExtra):
    """What one tensor instruction's modifiers (and a tcgen05 op's descriptor) say."""

    shape: str | None  # m16n8k16, as PTX writes it; None: not in the SASS
    accumulator: str | None
    inputs: str | None  # BF16, E4M3.E5M2 where A and B differ; tcgen05: kind::f16 or its types


class TensorOp(Decoded):
    """One kind of tensor op of the kernel (the `ops` of the facts): one per (mnemonic, inputs,
    shape); the JSON keys are mnemonic, path, the decoded ones, count."""

    mnemonic: str
    path: str | None  # tcgen05, wgmma, mma.sync
    count: int


@dataclass(frozen=True, slots=True, eq=False)
class TensorCoreFacts(Facts):
    """The tensor-core path the kernel takes, its MMA ops, and an FMA fallback where it has none."""

    ANALYSIS: ClassVar[str] = "tensor_cores"
    path: str  # tcgen05, wgmma, mma.sync, ... or "none"
    ops: list[TensorOp]  # one per (mnemonic, inputs, shape), with its count
    fences: int
    waits: int
    per_loop: dict[str, str]  # SASS loop index -> its path
    fma: dict[str, int]  # FMA opcode -> count
    fma_fallback: bool
    fma_fallback_loops: list[int]
    ptx_ops: dict[str, int]

    def summary(self, results: Results) -> dict[str, Any]:
        return {
            "tensor_core_path": self.path,
            "tensor_core_ops": [
                {
                    **{k: op[k] for k in ("mnemonic", "shape", "accumulator", "inputs", "count")},
                    "kind": op.get("kind"),  # tcgen05: the PTX kind::
                    "descriptor": op.get("descriptor"),  # tcgen05: a constant descriptor
                }
                for op in self.ops
            ],
        }

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        if not analysis["tensor_core_ops"]:
            return [Row("tensor cores", "none")]
        ops = ", ".join(
            f"{op['count']}x {op['mnemonic']}" + (f" ({op['shape']})" if op["shape"] else "")
            for op in analysis["tensor_core_ops"]
        )
        serialized = "; serialized by ptxas" if analysis.get("wgmma_serialized") else ""
        return [Row("tensor cores", f"{analysis['tensor_core_path']}: {ops}{serialized}")]

    def header(self, analysis: Mapping[str, Any]) -> list[Pair]:
        if analysis.get("wgmma_serialized"):
            return [Pair("tensor", f"{self.path} (serialized)", "alert")]
        return [Pair("tensor", self.path, "strong" if self.path != "none" else "")]


# schedule.py: issue cycles per trip and waits, from the control codes
class WaitFact(TypedDict):
    """A `Wait` of a loop's trip, as the facts give it."""

    address: int
    scoreboard: int
    producer: int
    opcode: str
    kind: str
    cycles_between: int
    carried: bool
    on: str


class LoopFact(TypedDict):
    """A `LoopSchedule`, as the facts give it, with its row's words (`text`)."""

    loop: int
    source_line: int | None
    instructions: int
    issue_cycles: int
    math_cycles: int
    math_share: float
    branches: bool
    inner_loops: int
    waits: list[WaitFact]
    text: str  # describe()


@dataclass(frozen=True, slots=True, eq=False)
class ScheduleFacts(Facts):
    """The issue cycles per trip of every SASS loop, from the control codes (none before sm_70)."""

    ANALYSIS: ClassVar[str] = "schedule"
    loops: list[LoopFact]  # one per SASS loop with a schedule

    def summary(self, results: Results) -> dict[str, Any]:
        """Per loop, the schedule ptxas encoded, the loop named as the census names it (a
        remainder loop says so)."""
        out = []
        for s in self.loops:
            row = {k: s[k] for k in ("loop", "source_line", "issue_cycles", "math_share")}
            out.append({**row, "text": placed_text(s, results.loop_place(s["loop"]))})
        return {"schedule": out}

    @classmethod
    def check_rows(cls, analysis: Mapping[str, Any]) -> list[Row]:
        roles = analysis.get("warp_roles") or []
        waiting = {n for r in roles for w in r["waits"] for n in w["sass_loops"]}  # said above
        return [
            Row("schedule", text)
            for text in once_each(
                loop["text"] for loop in analysis["schedule"] if loop["loop"] not in waiting
            )
        ]


def loop_place(line: int | None, loop: int) -> str:
    """How an analysis that knows only the SASS loop names it (a schedule row, an exposed-load
    note): by its source line, else by its index. Views show the census' name instead
    (`placed`): two remainder loops, or a main loop and its remainder, share the line."""
    return f"line {line}" if line is not None else f"loop {loop}"


def placed(text: str, line: int | None, loop: int, place: str | None) -> str:
    """`text`, which begins with `loop_place(line, loop)` and a colon, with the loop named by
    `place` (the loop census' name, `LoopEntry.place_of`: its statement's line, and which of
    its main and remainder loops it is); `text` as it is where the census has no name for it
    or it begins otherwise."""
    own = loop_place(line, loop)
    if place is None or not text.startswith(own + ":"):
        return text
    return place + text[len(own) :]


def placed_text(fact: LoopFact, place: str | None) -> str:
    """A schedule row's `text` with its loop named by `place` (`placed`)."""
    return placed(fact["text"], fact["source_line"], fact["loop"], place)


# ptxas_advice.py: what ptxas' own report says
class Advisory(TypedDict):
    """One ptxas advisory about this kernel (a `PtxasAdvisory` less its function)."""

    code: str  # C7511, ...
    text: str
    ptx_line: int | None


@dataclass(frozen=True, slots=True, eq=False)
class PtxasFacts(Facts):
    """What ptxas' log says about this kernel (or a function it calls)."""

    ANALYSIS: ClassVar[str] = "ptxas"
    wgmma_serialized: bool
    injected_waits: int
    advisories: list[Advisory]

    def summary(self, results: Results) -> dict[str, Any]:
        return {"wgmma_serialized": self.wgmma_serialized}
