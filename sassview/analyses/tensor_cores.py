"""Tensor cores: which matrix-multiply path a kernel (and each loop) takes, with shapes and types.

Detects, from SASS opcodes:
  - "tcgen05" (sm_100a/sm_103a): UTCHMMA (kind::f16, kind::tf32), UTCQMMA (kind::f8f6f4,
    mxf8f6f4), UTCOMMA (mxf4, mxf4nvf4), UTCIMMA (kind::i8), UTCMMA; their shape and types live in
    the runtime instruction descriptor, so only the PTX `kind::` is reported;
  - "wgmma" (sm_90a): HGMMA / IGMMA / BGMMA / QGMMA, e.g. HGMMA.64x128x16.F32.BF16 -> m64n128k16,
    accumulate F32, inputs BF16; WARPGROUP.ARRIVE (wgmma.fence) and WARPGROUP.DEPBAR
    (wgmma.wait_group) are counted;
  - "mma.sync" (sm_80+): HMMA.16816.F32.BF16 -> m16n8k16, HMMA.1688.F32.TF32, IMMA.16832.S8.S8,
    DMMA.884 (sm_80) / DMMA.8x8x4 (sm_90+), BMMA.168256.XOR.POPC, QMMA.16832.F32.E4M3.E4M3 and
    OMMA.SF.16864.F32.E2M1.E2M1.E8 (sm_120);
  - "none": no tensor op; when FFMA/HFMA2/DFMA make up much of a kernel or loop the findings say
    "FMA fallback" — a WARNING on sm_90 / sm_100 without the `a` suffix, where wgmma / tcgen05
    cannot be used at all.
Shapes are written as PTX writes them (m16n8k16). HMMA without an input type has F16 inputs;
IMMA/IGMMA/BMMA accumulate S32; `HFMA2.MMA Rd, -RZ, RZ, ...` is a register move, not an FMA.

How it can be wrong:
  - ptxas emulates what the chip lacks: fp8 mma.sync on sm_90/sm_100 becomes HMMA.16816.F32 after
    conversions, u4/b1 mma.sync on sm_90+ become IMMA.16832.U8.U8 / BMMA loops. The SASS path and
    types are then what runs, not what the PTX asked for ("ptx_ops" keeps the PTX side).
  - "FMA fallback" is a share of instructions (at least 16 FMAs and 20% of the scope), not a
    proof that the code is a matrix product: a stencil or polynomial looks the same. Only kernels
    without any tensor op are judged, so an FMA-heavy loop beside an MMA loop is not reported.
  - Per-loop paths need the loop finder; with no loops given only the kernel is judged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Protocol

from sassview.analyses.base import AnalysisContext, Annotation, Findings, Severity
from sassview.analyses.memory import distinct_locs, ptx_for, ptx_lines, ptx_opcodes
from sassview.analyses.records_compute import Decoded, TensorCoreFacts, TensorOp
from sassview.analyses.tcgen05_idesc import constant_before, decode_idesc
from sassview.frontends.arch import FEATURES_BY_NAME
from sassview.ir import Kernel, SassInstruction, SourceLoc
from sassview.opcodes import is_move

PATHS = ("tcgen05", "wgmma", "mma.sync", "none")  # most advanced first
FMA_OPCODES = frozenset({"FFMA", "FFMA2", "FFMA32I", "HFMA2", "HFMA2_32I", "DFMA"})
FMA_MIN = 16
FMA_SHARE = 0.2
_SHAPE_X = re.compile(r"^(\d+)x(\d+)x(\d+)$")
_SHAPE_DIGITS = re.compile(r"^\d{3,6}$")
_TYPE = re.compile(r"^(?:F|BF|TF|S|U|B|E|UE)\d+(?:M\d+)?$")
_INT_FAMILIES = frozenset({"IMMA", "IGMMA", "BMMA", "BGMMA"})
# sm_90 -> "... or wgmma on sm_90a": each plain arch whose `a` target has a tensor-core path.
_NO_SUFFIX_HINT = {
    t.removesuffix("a"): f"fp32 FMA fallback; for tensor cores use mma.sync, or {f.name} on {t}"
    for f in (FEATURES_BY_NAME["wgmma"], FEATURES_BY_NAME["tcgen05"])
    for t in f.targets
    if t.endswith("a")
}
FALLBACK_HINT = (
    f"for tensor cores use mma.sync / wgmma ({FEATURES_BY_NAME['wgmma'].targets[0]}) / tcgen05"
    f" ({FEATURES_BY_NAME['tcgen05'].targets[0]}), or a library"
)


class LoopLike(Protocol):
    """What this analysis reads of a loop (sassview.graph.loops.Loop has it)."""

    @property
    def index(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def addresses(self) -> tuple[int, ...]: ...
    @property
    def source(self) -> SourceLoc | None: ...


def path_of(opcode: str) -> str | None:
    """The tensor path an opcode belongs to, or None for anything else."""
    if not opcode.endswith("MMA"):
        return None
    if opcode.startswith("UTC"):
        return "tcgen05"
    if opcode.endswith("GMMA"):
        return "wgmma"
    return "mma.sync"


def is_fma(ins: SassInstruction) -> bool:
    if ins.opcode not in FMA_OPCODES:
        return False
    return not is_move(ins)


def decode(ins: SassInstruction, ptx_text: str | None = None) -> Decoded:
    """Shape and types of one tensor instruction, from its modifiers (tcgen05: from its PTX)."""
    fam = ins.opcode
    shape = None
    for mod in ins.modifiers:
        m = _SHAPE_X.match(mod)
        if m:
            shape = f"m{m.group(1)}n{m.group(2)}k{m.group(3)}"
            break
        if _SHAPE_DIGITS.match(mod):
            mm = "16" if mod.startswith("16") else "8"
            rest = mod[len(mm) :]
            shape = f"m{mm}n{rest[0]}k{rest[1:]}"  # mma.sync N is 8 on every shape
            break
    types = [m for m in ins.modifiers if _TYPE.match(m)]
    scale = types.pop() if "SF" in ins.modifiers and len(types) >= 2 else None
    acc: str | None
    if path_of(fam) == "tcgen05":
        kind = next((p for p in (ptx_text or "").split(".") if p.startswith("kind::")), None)
        acc, inputs = None, kind
    elif fam in _INT_FAMILIES:
        acc, inputs = "S32", _join(types or (["B1"] if fam.startswith("B") else []))
    elif fam == "DMMA":
        acc, inputs = "F64", "F64"
    else:
        acc = types[0] if types else "F16"
        inputs = _join(types[1:] or (["F16"] if fam.startswith("H") else []))
    out: Decoded = {"shape": shape, "accumulator": acc, "inputs": inputs}
    if scale is not None:
        out["scale"] = scale
    return out


def _join(types: Sequence[str]) -> str | None:
    if not types:
        return None
    return types[0] if len(set(types)) == 1 else ".".join(types)


def run(ctx: AnalysisContext) -> Findings:
    kernel = ctx.kernel
    table = ctx.shared(ptx_lines)
    tensor: list[tuple[int, SassInstruction]] = []  # (index, instruction)
    fma: dict[int, SassInstruction] = {}  # address -> FMA, in address order
    fma_kinds: dict[str, int] = {}
    fences = waits = 0
    for index, ins in enumerate(kernel.instructions):
        op = ins.opcode
        if op in FMA_OPCODES:  # no FMA opcode ends in MMA: the order of the tests is free
            if op != "HFMA2" or is_fma(ins):  # only HFMA2 can be a move
                fma[ins.address] = ins
                fma_kinds[op] = fma_kinds.get(op, 0) + 1
        elif op.endswith("MMA"):  # path_of(op) is not None
            tensor.append((index, ins))
        elif op == "WARPGROUP":
            fences += ins.modifiers[:1] == ("ARRIVE",)
            waits += ins.modifiers[:1] == ("DEPBAR",)
    fma_addresses = fma.keys()
    ops: dict[tuple[str, str | None, str | None], TensorOp] = {}
    for index, ins in tensor:
        if path_of(ins.opcode) == "tcgen05":
            ptx = ptx_for(kernel, table, ins.address)
            decoded = decode(ins, ptx.mnemonic if ptx is not None else None)
            _descriptor_shape(ctx, index, ins, decoded)
        else:
            decoded = decode(ins)
        # tcgen05: one opcode, several kind:: and shapes
        key = (ins.mnemonic, decoded["inputs"], decoded["shape"])
        entry = ops.get(key)
        if entry is None:
            entry = ops[key] = {
                "mnemonic": ins.mnemonic, "path": path_of(ins.opcode), **decoded, "count": 0
            }  # fmt: skip
        entry["count"] += 1
    path = _best(path_of(i.opcode) for _, i in tensor)
    tensor_paths = {i.address: str(path_of(i.opcode)) for _, i in tensor}
    loops: Sequence[LoopLike] = tuple(ctx.loops or ())
    per_loop = {str(lp.index): _best(tensor_paths.get(a) for a in lp.addresses) for lp in loops}
    present = ctx.shared(ptx_opcodes)
    ptx_ops = _ptx_tensor_ops(kernel, present)
    n = len(kernel.instructions)
    fma_total = len(fma_addresses)
    fallback = path == "none" and _dominant(fma_total, n)
    # A kernel with tensor ops elsewhere (an FFMA epilogue or softmax loop) is no fallback.
    fallback_loops = _fallback_loops(loops, per_loop, fma_addresses) if path == "none" else []
    facts = TensorCoreFacts(
        path=path,
        ops=list(ops.values()),
        fences=fences,
        waits=waits,
        per_loop=per_loop,
        fma=fma_kinds,
        fma_fallback=bool(fallback or fallback_loops),
        fma_fallback_loops=[lp.index for lp in fallback_loops],
        ptx_ops=ptx_ops,
    )
    annotations: list[Annotation] = []
    if tensor:
        summary = list(ops.values())
        instructions = [ins for _, ins in tensor]
        annotations.append(
            _tensor_note(path, summary, instructions, fences, waits, loops, per_loop)
        )
    missing = [name for name in ptx_ops if name.startswith("wgmma.mma_async")]
    if missing and not any(p == "wgmma" for p in tensor_paths.values()):
        annotations.append(
            Annotation(
                kind="tensor-core",
                severity=Severity.WARNING,
                message="the PTX has wgmma.mma_async but the SASS has no HGMMA/IGMMA/QGMMA/BGMMA",
                hint=f"compile for {' or '.join(FEATURES_BY_NAME['wgmma'].targets)} (wgmma needs"
                " the `a` target), and check the ptxas log",
                data={"ptx_ops": {k: ptx_ops[k] for k in missing}},
            )
        )
    annotations.extend(_emulation_notes(kernel, [ins for _, ins in tensor], present))
    annotations.extend(_fallback_notes(kernel, fallback, fallback_loops, fma, fma_kinds))
    return Findings(facts=facts, annotations=tuple(annotations))


def _descriptor_shape(ctx: AnalysisContext, index: int, ins: SassInstruction, out: Decoded) -> None:
    """Adds a tcgen05 op's kind and cta group to `out` (its `decode`), and its shape and types
    where its instruction descriptor is a constant (analyses/tcgen05_idesc.py)."""
    kind = out["inputs"]  # decode's kind:: of the PTX
    group = 2 if "2CTA" in ins.modifiers else 1
    out["kind"], out["cta_group"], out["descriptor"] = kind, group, None
    reg = next((o.text[6:-1] for o in ins.operands if o.text.startswith("idesc[")), None)
    if reg is None or ctx.cfg is None:  # the recorded-case tests run without a CFG
        return
    value = constant_before(ctx.kernel.instructions, ctx.cfg, reg, index)
    if value is None:
        return
    out["descriptor"] = f"{value:#x}"
    decoded = decode_idesc(value, kind, group)
    if decoded is not None:
        out["shape"], out["accumulator"] = decoded.shape, decoded.accumulator
        out["inputs"], out["sparse"] = decoded.inputs, decoded.sparse


def _best(paths: Iterable[str | None]) -> str:
    seen = {p for p in paths if p}
    return next((p for p in PATHS if p in seen), "none")


def _dominant(fma: int, total: int) -> bool:
    return fma >= FMA_MIN and total > 0 and fma / total >= FMA_SHARE


def _fallback_loops(
    loops: Sequence[LoopLike], per_loop: dict[str, str], fma_addresses: AbstractSet[int]
) -> list[LoopLike]:
    """Loops without tensor ops where FMAs dominate; the innermost, one per nest."""
    picked: list[LoopLike] = []
    covered: set[int] = set()
    for lp in sorted(loops, key=lambda x: -x.depth):
        if per_loop.get(str(lp.index)) != "none":
            continue
        fma = sum(1 for a in lp.addresses if a in fma_addresses)
        if _dominant(fma, len(lp.addresses)) and not covered.intersection(lp.addresses):
            picked.append(lp)
            covered.update(lp.addresses)
    return sorted(picked, key=lambda x: x.index)


def _ptx_tensor_ops(kernel: Kernel, present: Mapping[str, int]) -> dict[str, int]:
    """PTX tensor instructions by their leading words: mma.sync, wgmma.mma_async, tcgen05.mma.
    `present`: ptx_opcodes of the kernel."""
    out: dict[str, int] = {}
    if kernel.ptx is None or not any(present.get(op) for op in ("mma", "wgmma", "tcgen05")):
        return out
    for p in kernel.ptx.instructions:
        if p.opcode in ("mma", "wgmma", "tcgen05") and p.modifiers:
            if p.opcode == "tcgen05" and not p.modifiers[0].startswith("mma"):
                continue
            if p.opcode == "wgmma" and p.modifiers[0] != "mma_async":
                continue
            name = f"{p.opcode}.{p.modifiers[0]}"
            out[name] = out.get(name, 0) + 1
    return out


def _emulation_notes(
    kernel: Kernel, tensor: list[SassInstruction], present: Mapping[str, int]
) -> list[Annotation]:
    """PTX mma.sync on fp8 / int4 that the SASS runs on other types: ptxas emulated it."""
    if kernel.ptx is None or not present.get("mma"):
        return []
    asked: dict[str, list[int]] = {}
    for p in kernel.ptx.instructions:
        if p.opcode == "mma":
            for family, types in _EMULATED.items():
                if any(t in p.modifiers for t in types):
                    asked.setdefault(family, []).append(p.line)
    out = []
    sass_types = {m for ins in tensor for m in ins.modifiers}
    for family, lines in asked.items():
        if sass_types & {t.upper() for t in _EMULATED[family]}:
            continue
        used = sorted({i.mnemonic for i in tensor if path_of(i.opcode) == "mma.sync"})
        out.append(
            Annotation(
                kind="tensor-core",
                severity=Severity.NOTE,
                message=f"{family} mma.sync is emulated on {kernel.arch}: no {family} tensor op in"
                f" the SASS ({len(lines)} PTX mma.sync on {'/'.join(_EMULATED[family])})",
                hint=_EMULATION_HINT[family],
                addresses=tuple(i.address for i in tensor),
                source=distinct_locs(tensor),
                data={"ptx_lines": lines, "sass": used},
            )
        )
    return out


_EMULATED = {"fp8": ("e4m3", "e5m2"), "int4": ("s4", "u4")}
_EMULATION_HINT = {
    "fp8": "fp8 mma.sync runs natively on sm_89 and sm_120; on sm_90a use wgmma (QGMMA)",
    "int4": "int4 mma.sync runs natively on sm_80/sm_86/sm_89 only; use int8 on later chips",
}


def _tensor_note(
    path: str,
    ops: list[TensorOp],
    tensor: list[SassInstruction],
    fences: int,
    waits: int,
    loops: Sequence[LoopLike],
    per_loop: dict[str, str],
) -> Annotation:
    parts = []
    for op in ops:
        types = f"{op['accumulator']} += {op['inputs']}" if op["accumulator"] else op["inputs"]
        desc = ", ".join(str(x) for x in (op["shape"], types) if x)
        parts.append(f"{op['count']} {op['mnemonic']}" + (f" ({desc})" if desc else ""))
    extra = f"; {fences} fence(s), {waits} wait(s)" if path == "wgmma" else ""
    return Annotation(
        kind="tensor-core",
        severity=Severity.INFO,
        message=f"tensor cores via {path}: " + ", ".join(parts) + extra,
        addresses=tuple(i.address for i in tensor),
        loops=tuple(lp.index for lp in loops if per_loop.get(str(lp.index)) != "none"),
        source=distinct_locs(tensor),
        data={"path": path},
    )


def _fallback_notes(
    kernel: Kernel,
    whole: bool,
    loops: list[LoopLike],
    fma: dict[int, SassInstruction],
    fma_kinds: dict[str, int],
) -> list[Annotation]:
    arch = kernel.arch
    severity = Severity.WARNING if arch in _NO_SUFFIX_HINT else Severity.INFO
    hint = _NO_SUFFIX_HINT.get(arch, FALLBACK_HINT)
    main = max(fma_kinds, key=lambda k: fma_kinds[k]) if fma_kinds else "FFMA"
    label = {"DFMA": "fp64", "HFMA2": "fp16", "HFMA2_32I": "fp16"}.get(main, "fp32")
    out = []
    scopes: list[tuple[str, tuple[int, ...], tuple[int, ...], SourceLoc | None]] = [
        (f"loop {lp.index}", tuple(a for a in lp.addresses if a in fma), (lp.index,), lp.source)
        for lp in loops
    ]
    if whole and not scopes:
        scopes.append(("kernel", tuple(sorted(fma)), (), None))
    for where, addrs, loop_ids, src in scopes:
        # A loop has its own line; the FMAs' lines are only needed without one.
        source = (src.outermost,) if src is not None else distinct_locs(map(fma.__getitem__, addrs))
        out.append(
            Annotation(
                kind="tensor-core",
                severity=severity,
                message=f"{label} FMA fallback: {len(addrs)} FMAs and no tensor-core op in {where}"
                f" ({arch})",
                hint=hint,
                addresses=addrs,
                loops=loop_ids,
                source=source,
                data={"fma": len(addrs), "arch": arch},
            )
        )
    return out
