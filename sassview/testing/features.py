"""What `assert_uses("wgmma")` can ask about: named features, each read from an analysis' facts.

Each feature says whether the kernel has it (from the facts, never from a second look at the
instructions), which annotation kinds explain it, and a one-line summary for messages. Names
are case-insensitive and `_` / `-` read as spaces ("tensor_cores" is "tensor cores"). Anything
else is taken as an opcode pattern (see sassview.testing.patterns): `assert_uses("HGMMA.64x*")`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sassview.analyses.records_compute import PtxasFacts, TensorCoreFacts, TensorOp
from sassview.analyses.records_memory import AsyncCopyFacts, SpillFacts
from sassview.api import FEATURES_BY_NAME
from sassview.inspection import Inspection
from sassview.testing.failures import FeatureMismatch, compose, counted
from sassview.testing.patterns import opcode_of

if TYPE_CHECKING:
    from sassview.testing.subject import Subject


@dataclass(frozen=True, slots=True)
class Feature:
    name: str
    present: Callable[[Inspection], bool]
    summary: Callable[[Inspection], str]  # what the kernel has instead / in fact
    kinds: tuple[str, ...]  # annotation kinds that explain it
    targets: tuple[str, ...] = ()  # the only architectures that have it (empty: any)


def _tensor_ops(insp: Inspection) -> list[TensorOp]:
    return insp.typed_facts(TensorCoreFacts).ops


def _tensor_summary(insp: Inspection) -> str:
    facts = insp.typed_facts(TensorCoreFacts)
    ops = ", ".join(f"{op['mnemonic']} x{op['count']}" for op in facts.ops) or "no tensor op"
    text = f"tensor-core path {facts.path} ({ops})"
    if facts.ptx_ops:
        text += "; PTX has " + ", ".join(f"{k} x{v}" for k, v in facts.ptx_ops.items())
    return text


def _tensor_path(path: str, targets: tuple[str, ...] = ()) -> Feature:
    return Feature(
        path,
        lambda i: any(op["path"] == path for op in _tensor_ops(i)),
        _tensor_summary,
        ("tensor-core",),
        targets,
    )


def _async(fact: Callable[[AsyncCopyFacts], object]) -> Callable[[Inspection], int]:
    """How many of what `fact` picks of the async-copy facts: a count, the sum of a table of
    counts, or the length of a list."""

    def count(insp: Inspection) -> int:
        value = fact(insp.typed_facts(AsyncCopyFacts))
        if isinstance(value, dict):
            return sum(v for v in value.values() if isinstance(v, int))
        return len(value) if isinstance(value, list) else int(value)  # type: ignore[call-overload]

    return count


def _async_feature(name: str, fact: Callable[[AsyncCopyFacts], object], what: str) -> Feature:
    count = _async(fact)
    return Feature(name, lambda i: count(i) > 0, lambda i: f"{count(i)} {what}", ("async-copy",))


def _spill_summary(insp: Inspection) -> str:
    f = insp.typed_facts(SpillFacts)
    return (
        f"{f.spill_instructions} spill instructions ({f.spill_store_bytes} bytes "
        f"stored, {f.spill_load_bytes} loaded), {f.local_array_instructions} "
        "local-array accesses"
    )


FEATURES: dict[str, Feature] = {
    f.name: f
    for f in (
        _tensor_path("wgmma", FEATURES_BY_NAME["wgmma"].targets),
        _tensor_path("mma.sync"),
        _tensor_path("tcgen05", FEATURES_BY_NAME["tcgen05"].targets),
        Feature("tensor cores", lambda i: bool(_tensor_ops(i)), _tensor_summary, ("tensor-core",)),
        _async_feature("cp.async", lambda f: f.cp_async, "cp.async copies (LDGSTS)"),
        _async_feature("tma", lambda f: f.tma, "TMA operations"),
        _async_feature("bulk copies", lambda f: f.bulk_copies, "bulk copies"),
        _async_feature("ldmatrix", lambda f: f.ldmatrix, "ldmatrix (LDSM)"),
        _async_feature("stmatrix", lambda f: f.stmatrix, "stmatrix (STSM)"),
        _async_feature("barriers", lambda f: f.barriers, "barriers"),
        Feature(
            "mbarrier",
            lambda i: any(
                k != "by_mnemonic" and v
                for k, v in i.typed_facts(AsyncCopyFacts).mbarrier_ops.items()
            ),
            lambda i: (
                "mbarrier ops: "
                + (
                    ", ".join(
                        f"{k} x{v}"
                        for k, v in i.typed_facts(AsyncCopyFacts).mbarrier_ops.items()
                        if k != "by_mnemonic"
                    )
                    or "none"
                )
            ),
            ("async-copy",),
        ),
        Feature("spills", lambda i: i.typed_facts(SpillFacts).spills, _spill_summary, ("spill",)),
        Feature(
            "local memory",
            lambda i: bool(
                i.typed_facts(SpillFacts).spill_instructions
                or i.typed_facts(SpillFacts).local_array_instructions
            ),
            _spill_summary,
            ("spill", "local-array"),
        ),
        Feature(
            "serialized wgmma",
            lambda i: i.typed_facts(PtxasFacts).wgmma_serialized,
            lambda i: (
                "; ".join(f"{a['code']} {a['text']}" for a in i.typed_facts(PtxasFacts).advisories)
                or "no ptxas advisory"
            ),
            ("wgmma-serialized", "wgmma-wait-injected"),
            FEATURES_BY_NAME["wgmma"].targets,
        ),
        Feature(
            "shared memory",
            lambda i: i.kernel.resources.shared_user > 0,
            lambda i: f"{i.kernel.resources.shared_user} bytes of shared memory declared",
            (),
        ),
    )
}
ALIASES = {
    "mma": "mma.sync",
    "syncthreads": "barriers",
    "bulk": "bulk copies",
    "spill": "spills",
    "smem": "shared memory",
}


def target_hint(f: Feature, arch: str) -> str:
    """Why the feature cannot appear on this architecture at all, or ""."""
    if not f.targets or arch in f.targets:
        return ""
    return (
        f"{f.name} exists only on {', '.join(f.targets)}; this kernel was compiled for "
        f"{arch} (pin the test: @pytest.mark.sassview(arch={f.targets[0]!r}))"
    )


def feature(name: str) -> Feature | None:
    """The named feature, or None when `name` is not one (then it is an opcode pattern)."""
    key = " ".join(name.lower().replace("_", " ").replace("-", " ").split())
    key = ALIASES.get(key, key)
    return FEATURES.get(key)


def check_feature(k: Subject, what: str, *, want: bool) -> None:
    """assert_uses (want=True) / assert_does_not_use (want=False)."""
    __tracebackhide__ = True
    f = feature(what)
    if f is not None:
        if f.present(k.inspection) == want:
            return
        notes = k.findings(f.kinds)
        marked = sorted({a for n in notes for a in n.addresses})
        summary = f.summary(k.inspection)
        hint = target_hint(f, k.arch) if want else ""
    else:
        found = k.instructions(what)
        if bool(found) == want:
            return
        opcode = opcode_of(what)
        near = [i for i in k.kernel.instructions if opcode and i.opcode == opcode]
        if found:
            summary = counted(i.mnemonic for i in found)
        elif near:
            summary = f"no match; same opcode: {counted(i.mnemonic for i in near)}"
        else:
            summary = "no instruction matches"
        notes, marked, hint = [], [i.address for i in (found or near)], ""
    raise FeatureMismatch(
        compose(
            f"{k.describe()} {'does not use' if want else 'uses'} {what}",
            expected=("uses " if want else "no ") + what,
            found=summary,
            hint=hint,
            findings=notes,
            listing=k.excerpt(marked),
        )
    )
