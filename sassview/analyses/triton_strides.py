"""A Triton load or store whose contiguous dimension's stride is a runtime argument.

Detects "runtime-stride" (NOTE, Triton kernels, any architecture): in the TTIR, a `tt.load` /
`tt.store` address is `ptr + tl.arange(...) * stride` along the tile's last dimension (the one
Triton lays out contiguously across a thread's registers), and `stride` is an integer parameter
that reached the compile as a runtime value. A launch passing 1 there would have made it the
constexpr 1 (Triton specializes ints equal to 1), so the addresses would be known contiguous and
the access could be vectorized and coalesced; compiled with the stride unknown, each element is
its own narrow access. In a kernel.py that is a declaration saying something the launch does
not (`stride_xk: "i32"` where the launch passes 1); in a kernel read from Triton's cache it means
the launch passed another value (a transposed or sliced tensor): `.contiguous()` on the host
gives Triton the unit stride.

How it found it: SSA values are followed forward through the TTIR text: `tt.make_range` marks
a value varying along dimension 0 of 1; `tt.expand_dims`, `tt.broadcast` and elementwise
`arith` ops carry the dimension; `arith.muli` of such a value by a parameter (or its
`tt.splat`/`tt.broadcast`) marks the product as scaled by that parameter, and `arith.addi`,
`tt.addptr`, `tt.broadcast` and loop-carried `scf.for` iter_args carry the mark to the
pointer a load or store takes. A value that varies along no range (a loaded gather index,
`rows[:, None] * stride_m`) scales no contiguous dimension (tests/data/frontends/
triton_gather.py), and a line whose global accesses are all 128 bits or wider (the gather's
LDGSTS.E.BYPASS.128) gets no note whatever the walk says.

In a kernel.py, a parameter declared a multiple of 16 (`args=` with such a value, or
`divisibility=`: Triton's `{tt.divisibility = 16}`) is no launch's 1: the walk along it may be
by design (a column sum, `rows * stride_m`), so the finding is INFO there, its hint saying so,
and the coalescing analysis reports what the stride costs; from Triton's cache it stays a note
(a transposed or sliced tensor passed: `.contiguous()`). Likewise a parameter a declaration by
example gives another value (`args=dict(..., stride_x=8)`): the hint never offers `=1` for it.

How it can be wrong: a stride reached through another op (a `arith.extsi` to i64 is followed,
a select or a call is not) is missed; a stride that is truly never 1 (a gather's) is reported
too, and the hint is then wrong: only the user knows the launch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.records import TritonStrideFacts
from sassview.ir import SourceLoc
from sassview.parse.mlir import LOCATION, location_resolver

_FUNC = re.compile(r"^\s*tt\.func\b[^(]*\((.*)\)\s*attributes")
# An integer parameter, and whether Triton specialized it as a multiple of 16 (a launch value
# divisible by 16: never 1, so no launch of this specialization makes it the constexpr 1).
_ARG = re.compile(r"%([\w$.-]+):\s*i(?:32|64)\b(\s*\{[^}]*tt\.divisibility\s*=\s*16\b)?")
_DEF = re.compile(r"^\s*(%[\w$.#-]+)(?::\d+)?\s*=\s*([\w.]+)\s*(.*)$")
_USE = re.compile(r"%[\w$.#-]+")
_AXIS = re.compile(r"axis\s*=\s*(\d+)")
_RANK = re.compile(r"->\s*tensor<((?:\d+x)*)")
_ITER = re.compile(r"(%[\w$.#-]+)\s*=\s*(%[\w$.#-]+)")
_ACCESS = re.compile(r"^\s*(?:%[\w$.#-]+\s*=\s*)?tt\.(load|store)\s+(%[\w$.#-]+)")
_CARRY = ("arith.addi", "arith.subi", "tt.addptr", "tt.broadcast", "tt.expand_dims", "arith.extsi")
_SPREAD = ("tt.splat", "tt.broadcast", "tt.expand_dims", "arith.extsi", "arith.extui")


@dataclass
class _Flow:
    """What is known of each SSA value: the parameter it merely is (splatted), the range
    dimension it varies along (dim, rank), and the parameters scaling a contiguous range."""

    param: dict[str, str] = field(default_factory=dict)
    ranged: dict[str, tuple[int, int]] = field(default_factory=dict)
    scaled: dict[str, frozenset[str]] = field(default_factory=dict)


def strided_accesses(ttir: str) -> list[tuple[str, str, str]]:
    """(load|store, parameter, location as written) for each access whose contiguous-dimension
    offsets are scaled by a runtime integer parameter."""
    flow = _Flow()
    out: list[tuple[str, str, str]] = []
    for line in ttir.splitlines():
        header = _FUNC.match(line)
        if header:
            flow = _Flow(param={f"%{a}": a for a, _ in _ARG.findall(header.group(1))})
            continue
        access = _ACCESS.match(line)
        if access:
            where = LOCATION.search(line)
            for name in sorted(flow.scaled.get(access.group(2), ())):
                out.append((access.group(1), name, where.group(1) if where else ""))
            continue
        if "scf.for" in line and "iter_args(" in line:
            _carry_iter_args(flow, line)
            continue
        found = _DEF.match(line)
        if found:
            _step(flow, found.group(1), found.group(2), found.group(3))
    return out


def divisible_parameters(ttir: str) -> frozenset[str]:
    """The integer parameters Triton specialized as multiples of 16 (never 1 at this launch)."""
    header = next((m for m in map(_FUNC.match, ttir.splitlines()) if m), None)
    if header is None:
        return frozenset()
    return frozenset(a for a, divisible in _ARG.findall(header.group(1)) if divisible)


def _carry_iter_args(flow: _Flow, line: str) -> None:
    inside = line.split("iter_args(", 1)[1]
    for new, init in _ITER.findall(inside):
        if init in flow.scaled:
            flow.scaled[new] = flow.scaled[init]


def _step(flow: _Flow, result: str, op: str, rest: str) -> None:
    uses = _USE.findall(rest.split(" loc(", 1)[0])
    if op == "tt.make_range":
        flow.ranged[result] = (0, 1)
        return
    if op in _SPREAD and uses and uses[0] in flow.param:
        flow.param[result] = flow.param[uses[0]]
    if uses and uses[0] in flow.ranged and op in ("tt.expand_dims", "tt.broadcast"):
        dim, rank = flow.ranged[uses[0]]
        if op == "tt.expand_dims":
            axis = int(m.group(1)) if (m := _AXIS.search(rest)) else 0
            flow.ranged[result] = (dim + 1 if axis <= dim else dim, rank + 1)
        else:
            shape = _RANK.search(rest)
            flow.ranged[result] = (dim, shape.group(1).count("x") if shape else rank)
    elif op.startswith("arith.") and any(u in flow.ranged for u in uses):
        flow.ranged[result] = next(flow.ranged[u] for u in uses if u in flow.ranged)
    if op == "arith.muli" and len(uses) == 2:
        for a, b in (uses, uses[::-1]):
            # a value not varying along a range (a loaded gather index) is no contiguous
            # dimension: the default must not read as "the last of rank 0"
            dim, rank = flow.ranged.get(a, (-1, -1))
            if dim >= 0 and dim == rank - 1 and b in flow.param:
                flow.scaled[result] = flow.scaled.get(result, frozenset()) | {flow.param[b]}
    if op in _CARRY:
        marks = frozenset().union(*(flow.scaled.get(u, frozenset()) for u in uses))
        if marks:
            flow.scaled[result] = flow.scaled.get(result, frozenset()) | marks


def run(ctx: AnalysisContext) -> Findings:
    art = ctx.program.artifacts
    ttir = art.stages.get("ttir") if art.kind == "triton" else None
    if not ttir:
        return Findings(facts=TritonStrideFacts(runtime_strides=[]))
    resolve = location_resolver(ttir.splitlines())
    from_cache = any(o.startswith("triton_cache=") for o in art.options)
    grouped: dict[str, dict[str, set[SourceLoc]]] = {}
    for kind, name, where in strided_accesses(ttir):
        places = grouped.setdefault(name, {"load": set(), "store": set()})
        places[kind] |= _own_lines(resolve(where) if where else frozenset(), art.source_path)
    declared = frozenset() if from_cache else divisible_parameters(ttir)
    passed = launch_values(art.options)
    annotations = tuple(
        _annotation(ctx, name, places, from_cache, name in declared, passed.get(name))
        for name, places in grouped.items()
        if not _already_wide(ctx, places)
    )
    facts = TritonStrideFacts(runtime_strides=sorted(grouped))
    return Findings(facts=facts, annotations=annotations)


def launch_values(options: Iterable[str]) -> dict[str, int]:
    """What a declaration by example says the launch passes (`launch_values=stride_x=8`,
    frontends/specs/triton.py): a stride declared 8 is no launch's 1."""
    for option in options:
        if option.startswith("launch_values="):
            pairs = (p.partition("=") for p in option.removeprefix("launch_values=").split(","))
            return {k: int(v) for k, _, v in pairs if v.lstrip("-").isdigit()}
    return {}


def _already_wide(ctx: AnalysisContext, places: dict[str, set[SourceLoc]]) -> bool:
    """Whether every global access of the lines is 128 bits or wider (a gather Triton made
    LDGSTS.E.BYPASS.128): "it keeps them scalar" would be wrong, so there is no note."""
    from sassview.analyses.memory import kernel_accesses

    wanted = {(s.file, s.line) for kind in places.values() for s in kind}
    widths = [
        a.bits
        for a in ctx.shared(kernel_accesses)
        if a.space in ("global", "generic")
        and (loc := a.instruction.source) is not None
        and any((f.file, f.line) in wanted for f in loc.frames())
    ]
    return bool(widths) and all(isinstance(b, int) and b >= 128 for b in widths)


def _own_lines(frames: Iterable[tuple[str, int]], source: str | None) -> set[SourceLoc]:
    """The frames in the kernel's own file (a location also names Triton's library lines)."""
    found = {SourceLoc(f, n) for f, n in frames}
    own = {s for s in found if s.file == source}
    return own or found


def _annotation(
    ctx: AnalysisContext,
    name: str,
    places: dict[str, set[SourceLoc]],
    from_cache: bool,
    declared_multiple: bool = False,
    declared_value: int | None = None,
) -> Annotation:
    lines = sorted(places["load"] | places["store"], key=lambda s: (s.file, s.line))
    what = " and ".join(k + "s" for k in ("load", "store") if places[k])
    at = ", ".join(str(s.line) for s in lines) or "?"
    message = (
        f"line {at}: {what} step by the runtime argument {name} along the contiguous"
        " dimension: unknown, it keeps them scalar"
    )
    if from_cache:
        hint = (
            f"the launch that compiled this passed {name} != 1 (a transposed or sliced"
            " tensor?): pass a contiguous tensor (.contiguous()) and Triton specializes"
            f" {name} to 1 and vectorizes"
        )
    elif declared_value is not None:
        hint = (
            f"the declaration passes {name}={declared_value} (args=), so no launch of it makes"
            " it 1: a walk along it by design is strided (see the uncoalesced finding); if the"
            f" real launch passes {name}=1, declare that instead"
        )
    elif declared_multiple:
        hint = (
            f"{name} is declared a multiple of 16 (args= or divisibility=), so no launch of"
            " this declaration makes it 1: a walk along it by design is strided (see the"
            f" uncoalesced finding); if the real launch passes {name}=1, declare that instead"
        )
    else:
        hint = (
            f"a launch passing {name}=1 compiles it as the constexpr 1: declare it so ({name}=1"
            f" in args=, or constexprs={{{name!r}: 1}})"
        )
    wanted = {(s.file, s.line) for s in lines}
    addresses = tuple(
        i.address
        for i in ctx.kernel.instructions
        if i.opcode in ("LDG", "STG", "LD", "ST") and i.source is not None
        and (i.source.file, i.source.line) in wanted
    )  # fmt: skip
    return Annotation(
        "runtime-stride",
        Severity.INFO if declared_multiple or declared_value is not None else Severity.NOTE,
        message,
        hint,
        addresses=addresses,
        source=tuple(lines),
        data={
            "argument": name,
            "declared_multiple": declared_multiple,
            "declared_value": declared_value,
        },
    )
