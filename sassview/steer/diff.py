"""Diff two compiles of a kernel: what changed in its code, with register allocation, labels and
addresses taken out (the normalised listings the snapshots use), and a summary of what the
change did (opcode counts, memory widths, loops, registers, spills).

A side is named by a spec: `PATH[@ARCH][?KEY=VALUE[&KEY=VALUE...]]` — a kernel.py or .cu with
an architecture and variant values (macros, options, Triton knobs), or any file sassview reads
(`old.cubin`, `new.cubin`: two toolchains' output).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from sassview.api import DEFAULT_ARCH, BuildOptions
from sassview.errors import InputError
from sassview.inspection import Inspection
from sassview.report.classify import Classified, classify, explain
from sassview.steer.sweep import NUMERIC, parse_value, row_values


@dataclass(frozen=True)
class Spec:
    path: Path
    arch: str | None
    variant: Mapping[str, Any]

    def __str__(self) -> str:
        text = str(self.path) + (f"@{self.arch}" if self.arch else "")
        if self.variant:
            text += "?" + "&".join(f"{k}={v}" for k, v in self.variant.items())
        return text


def parse_spec(text: str) -> Spec:
    path_part, _, query = text.partition("?")
    path_text, _, arch = path_part.partition("@")
    variant: dict[str, Any] = {}
    for item in filter(None, query.split("&")):
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(
                f"{text!r}: {item!r} is not KEY=VALUE", "e.g. kernel.py@sm_90a?num_warps=8"
            )
        variant[key] = parse_value(value, key)
    return Spec(Path(path_text), arch or None, MappingProxyType(variant))


def inspect_spec(
    spec: Spec, kernel: str | None, build: BuildOptions | None = None
) -> list[Inspection]:
    """The Inspections of one side: a single (arch, variant) job for kernel.py / .cu, a .cu
    built as `build` says."""
    from sassview.api import Job, analyze, compile_all, load
    from sassview.build import build_program
    from sassview.steer.sweep import open_kernel_file

    if spec.path.suffix == ".py" or (spec.path.suffix in (".cu", ".cuh") and spec.variant):
        kf = open_kernel_file(spec.path, [spec.arch or DEFAULT_ARCH], "diff", build)
        jobs = [
            Job(i, spec.arch or decl.archs[0], {**decl.variant_grid()[0], **spec.variant})
            for i, decl in enumerate(kf.declarations)
        ]
        out: list[Inspection] = []
        for artifacts in compile_all(kf, jobs=jobs, parallel=False):  # one job a declaration
            program = build_program(artifacts, where=str(spec))
            out += [x for x in analyze(program) if _named(x, kernel)]
        return out
    programs = load(spec.path, arch=spec.arch, build=build)
    return [x for p in programs for x in analyze(p) if _named(x, kernel)]


def _named(insp: Inspection, kernel: str | None) -> bool:
    return kernel is None or insp.kernel.matches(kernel)


def pair(
    a: list[Inspection], b: list[Inspection], kernel: str | None
) -> tuple[Inspection, Inspection]:
    """The kernel both sides have (by mangled name): the one asked for, or the only common one;
    with no name in common and one kernel each side, those two (a kernel renamed between two
    files). `renamed` says when the pair's names differ, for the view to say so."""
    names_a = {i.kernel.name: i for i in a}
    names_b = {i.kernel.name: i for i in b}
    common = [n for n in names_a if n in names_b]
    if not common and kernel is None and len(names_a) == len(names_b) == 1:
        return a[0], b[0]
    if not common:
        raise InputError(
            "the two sides have no kernel in common" + (f" named {kernel!r}" if kernel else ""),
            f"kernels: {', '.join(names_a) or '-'} vs {', '.join(names_b) or '-'}",
        )
    if len(common) > 1 and kernel is None:
        raise InputError(
            f"both sides have {len(common)} kernels", "pick one with --kernel: " + ", ".join(common)
        )
    return names_a[common[0]], names_b[common[0]]


def renamed(left: Inspection, right: Inspection) -> str:
    """A note when `pair` matched two differently named kernels, or ""."""
    if left.kernel.name == right.kernel.name:
        return ""
    return (
        f"each side has one kernel, under different names: comparing "
        f"{left.kernel.display_name} with {right.kernel.display_name}"
    )


@dataclass(frozen=True)
class Change:
    summary: list[tuple[str, Any, Any]]  # (what, before, after) for what differs
    opcodes: list[tuple[str, int, int]]  # (opcode, before, after) where counts differ
    sass_diff: list[str]  # unified diff of the normalised SASS ([] when the same)
    ptx_diff: list[str]
    # Each change classified significant / benign / unclear (report/classify.py).
    classified: Classified = Classified(())


def compare(a: Inspection, b: Inspection, *, names: tuple[str, str] = ("a", "b")) -> Change:
    from sassview.report.normalize import normalize_ptx, normalize_sass

    va, vb = row_values(a), row_values(b)
    keys = [
        *NUMERIC,
        "global_load_bits",
        "global_store_bits",
        "tensor",
        "cp_async",
        "tma_loads",
        "loops",
        "occupancy",
        "loop_cycles",
    ]
    summary = [(k, va[k], vb[k]) for k in keys if va[k] != vb[k]]
    ca, cb = a.kernel.opcode_counts(), b.kernel.opcode_counts()
    opcodes = sorted(
        (
            (op, ca.get(op, 0), cb.get(op, 0))
            for op in set(ca) | set(cb)
            if ca.get(op, 0) != cb.get(op, 0)
        ),
        key=lambda t: (-abs(t[2] - t[1]), t[0]),
    )
    # A kernel renamed between the two sides (`pair`): its name in B's text reads as A's, so
    # the header names the rename and the listing diff shows only the code.
    same_name = _renamer(b.kernel.name, a.kernel.name)
    listing_a, listing_b = normalize_sass(a.kernel), same_name(normalize_sass(b.kernel))
    sass = _udiff(listing_a, listing_b, names)
    ptx_a = a.kernel.ptx and _function_text(a)
    ptx_b = b.kernel.ptx and same_name(_function_text(b))
    ptx = (
        _udiff(normalize_ptx(ptx_a or ""), normalize_ptx(ptx_b or ""), names)
        if ptx_a and ptx_b
        else []
    )
    return Change(summary, opcodes, sass, ptx, classify(va, listing_a, vb, listing_b))


def describe(change: Change, *, ptx: bool = False) -> list[str]:
    """The comparison as text lines: the summary, the opcode counts, then the listing diff."""
    lines = []
    if not change.sass_diff:
        lines.append("same SASS (after renaming registers and labels, without addresses)")
    for what, x, y in change.summary:
        delta = f" ({y - x:+d})" if isinstance(x, int) and isinstance(y, int) else ""
        lines.append(f"{what:<18} {x} -> {y}{delta}")
    if change.opcodes:
        lines.append(
            "opcodes            " + ", ".join(f"{o} {x}->{y}" for o, x, y in change.opcodes[:12])
        )
    if change.classified.verdicts:
        lines.append(f"verdict            {change.classified.kind} (docs/toolchains.md: the rules)")
        lines += ["  " + line for line in explain(change.classified)]
    lines += change.sass_diff
    if ptx:
        lines += change.ptx_diff
    return lines


def _renamer(old: str, new: str) -> Callable[[str], str]:
    if old == new:
        return lambda text: text
    word = re.compile(rf"(?<![\w$]){re.escape(old)}(?=_param_\d|[^\w$]|$)")  # PTX params too
    return lambda text: word.sub(new, text)


def _function_text(insp: Inspection) -> str:
    f = insp.kernel.ptx
    text = insp.program.artifacts.ptx or ""
    if f is None or not text:
        return ""
    return "\n".join(text.split("\n")[f.start_line - 1 : f.end_line])


def _udiff(a: str, b: str, names: tuple[str, str]) -> list[str]:
    if a == b:
        return []
    return list(
        difflib.unified_diff(a.splitlines(), b.splitlines(), names[0], names[1], lineterm="", n=2)
    )


__all__ = ["Change", "Spec", "compare", "inspect_spec", "pair", "parse_spec", "renamed"]
