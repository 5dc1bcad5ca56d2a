"""What every analysis returns, and what it is given.

An analysis is one function `run(ctx) -> Findings`, in one file, registered once in
`sassview/analyses/__init__.py`. It reads the kernel's instructions and graph through `ctx`, and
returns facts (its own `Facts` record, sassview/analyses/facts.py: views read its attributes,
JSON writers its mapping of JSON-able values; unroll's typed `LoopEntry`s sit beside their JSON
form, under `entries`, and views that write JSON take the JSON form) and annotations (each
finding, pointing at addresses, blocks or loops, with a message and a hint naming the knob).
An index of the kernel that several analyses build alike is made once, by `ctx.shared`.
Analyses never import a view, and never print.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from sassview.analyses.facts import Facts
from sassview.ir import SourceLoc

if TYPE_CHECKING:
    from sassview.graph.cfg import ControlFlowGraph
    from sassview.graph.dataflow import Effects, Liveness
    from sassview.graph.lanes import BlockShape
    from sassview.graph.loops import Loop
    from sassview.ir import Kernel, Program

_T = TypeVar("_T")


class Severity(enum.IntEnum):
    """How much a finding matters to someone tuning the kernel."""

    INFO = 0  # a fact worth seeing (a loop unrolled by 4, wgmma in use)
    NOTE = 1  # a likely missed opportunity (scalar loads that could be merged)
    WARNING = 2  # something that usually costs speed (spills, requested unroll not achieved)


@dataclass(frozen=True, slots=True)
class HintStanding:
    """Whether the knob a finding's hint names was tried (sassview/steer/standing.py decides,
    every view reads it): "untried"; "helped" (compiled with the knob, the finding went away);
    "stays" (compiled, the finding is still there: not a fix); "failed" (it did not compile:
    not a fix). A hint with no knob (a source edit) has no standing: it is advice."""

    state: str  # untried | helped | stays | failed
    knob: str  # what a person would type: "num_stages=2", "divisibility=['x_ptr', 'n']"
    # what the trial found: "gone; registers -2", the compiler's error; untried: why it cannot
    # be tried here ("" when `sassview try` can)
    outcome: str = ""

    @property
    def is_fix(self) -> bool:
        """Whether the hint may still be offered as a fix (tried and it helped, or untried
        and said so)."""
        return self.state in ("helped", "untried")

    def words(self) -> str:
        """The standing in the words every view prints after (or instead of) the hint."""
        if self.state == "untried" and self.outcome:  # it cannot be tried here: why
            return f"untried: {self.knob} ({self.outcome})"
        if self.state == "untried":
            return f"untried: `sassview try` (or `check --try`) compiles {self.knob}"
        if self.state == "helped":
            return f"tried {self.knob}: {self.outcome}"
        if self.state == "stays":
            return f"not a fix: tried {self.knob}, {self.outcome}"
        return f"not a fix: tried {self.knob}, it failed to compile ({self.outcome})"

    def hint_text(self, hint: str) -> str:
        """The hint as shown: the analysis' advice with its standing, or, for a knob tried
        and failed, only what the trial found (it is never offered as a fix)."""
        if not self.is_fix:
            return self.words()
        return f"{hint} [{self.words()}]" if hint else self.words()


@dataclass(frozen=True, slots=True)
class Annotation:
    kind: str  # e.g. "spill", "narrow-load", "unroll", "tensor-core"
    severity: Severity
    message: str  # one line, the finding
    hint: str = ""  # one line, the knob that changes it (`#pragma unroll`, `__restrict__`, ...)
    addresses: tuple[int, ...] = ()  # SASS addresses it rests on
    blocks: tuple[int, ...] = ()  # basic-block indices
    loops: tuple[int, ...] = ()  # loop indices
    source: tuple[SourceLoc, ...] = ()  # the source lines involved (outermost frames first)
    data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))  # JSON-able
    # Whether the hint's knob was tried (steer/standing.py); None: no knob, or not decided
    standing: HintStanding | None = None


@dataclass(frozen=True, slots=True)
class Findings:
    facts: Facts  # a record, never a dict: a renamed fact is then a type error in its readers
    annotations: tuple[Annotation, ...] = ()


@dataclass(frozen=True, slots=True)
class AnalysisContext:
    """Everything an analysis may read. Built once per kernel by `sassview.inspection`."""

    program: Program
    kernel: Kernel
    cfg: ControlFlowGraph
    loops: tuple[Loop, ...]
    liveness: Liveness
    # The thread block the warp analyses take their lanes from (`check --block 16x16`);
    # None: the kernel's .reqntid, else one warp of 32 consecutive threadIdx.x.
    block: BlockShape | None = None
    # The kernel's instruction_effects, when the inspection computed them (for liveness):
    # the warp model reads what each instruction writes from them instead of again.
    effects: Sequence[Effects] | None = None
    # What `shared` computed so far, by the function that computes it.
    _shared: dict[Callable[[Kernel], Any], Any] = field(
        default_factory=dict, repr=False, compare=False
    )

    def shared(self, compute: Callable[[Kernel], _T]) -> _T:
        """`compute(kernel)`, computed once per context: for the per-kernel indexes several
        analyses read alike (the PTX line table, the JSON keys of source lines), which on a
        65k-instruction kernel cost as much to rebuild as an analysis. `compute` must depend on
        the kernel alone."""
        found = self._shared.get(compute, _MISSING)
        if found is _MISSING:
            found = self._shared[compute] = compute(self.kernel)
        return cast(_T, found)


_MISSING = object()
