"""One labelled loop corpus as its record script recorded it (NVRTC, sm_80 and sm_90a): the
real build's program, the rolled builds the census asks (loops/rolled.py) where they were
recorded, the hand labels (labels_<name>.json) and the `// @name` marks that place them. Each
corpus module (copies_corpus.py, shapes2_corpus.py, mactile_corpus.py, ...) is one of these,
read by its tests/test_loop_<name>.py and benchmarks/loop_copies_accuracy.py alike, so that the
benchmark imports no test module."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import sassview
from helpers.loop_marks import named_place, source_marks
from sassview.analyses.loops import rolled
from sassview.analyses.loops.entry import LoopEntry
from sassview.inspection import Inspection, inspect_kernel
from sassview.ir import Artifacts, Program
from sassview.parse.rolled_source import rolled_source

DATA = Path(__file__).parent.parent / "data" / "loops"
ARCHS = ("sm_80", "sm_90a")
# Which recorded rolled build answers a request: the flips (file name, depth), sorted, to the
# tag in its stem (`copies.rolled1f.sm_80`); None where none was recorded for them.
RolledTag = Callable[[tuple[tuple[str, int], ...]], str | None]


class RecordedCorpus:
    """tests/data/loops/<name>.cu and its headers as recorded, built with `defines`."""

    def __init__(
        self,
        name: str,
        headers: tuple[str, ...] = (),
        defines: tuple[str, ...] = (),
        rolled: RolledTag | None = None,
    ) -> None:
        self.name, self.defines, self._rolled = name, defines, rolled
        self.source = DATA / f"{name}.cu"
        self.files = (f"{name}.cu", *headers)
        self.labels: list[dict[str, Any]] = json.loads((DATA / f"labels_{name}.json").read_text())[
            "loops"
        ]
        # The rolled builds asked of a corpus that recorded none (a claim resting on one would
        # be stale here): its tests assert there are none.
        self.asked: list[tuple[str, int, dict[str, int]]] = []
        self.marks = cache(self._marks)
        self.program = cache(self._program)
        self.inspection = cache(self._inspection)

    def artifacts(self, stem: str, arch: str, text: str) -> Artifacts:
        """The recorded files of `stem` (`copies.sm_80`, `copies.rolled1.sm_80`) as a build's."""
        log = DATA / f"{stem}.log"
        return Artifacts(
            kind="cuda",
            arch=arch,
            source_path=str(self.source),
            source_text=text,
            ptx=(DATA / f"{stem}.ptx").read_text(),
            cubin=(DATA / f"{stem}.cubin").read_bytes(),
            compile_log=log.read_text() if log.exists() else "",
            options=(f"--gpu-architecture={arch}", "-lineinfo", *(f"-D{d}" for d in self.defines)),
        )

    def recorded_variant(
        self, art: Artifacts, parity: int, flips: Mapping[str, int]
    ) -> Artifacts | None:
        """The rolled build the record script kept for these flips (by file name: the recorded
        line tables name the tree they were recorded in); None for another program's artifacts
        or flips never recorded (noted in `asked` where the corpus recorded none)."""
        if self._rolled is None:
            self.asked.append((art.arch, parity, dict(flips)))
            return None
        if art.source_path != str(self.source):
            return None
        tag = self._rolled(tuple(sorted((Path(f).name, d) for f, d in flips.items())))
        stem = f"{self.name}.rolled{parity}{tag}.{art.arch}"
        if tag is None or not (DATA / f"{stem}.cubin").exists():
            return None
        return self.artifacts(stem, art.arch, rolled_source(self.source.read_text(), parity))

    def _marks(self) -> dict[str, tuple[str, int]]:
        """`// @name` -> (file name, line)."""
        return source_marks(DATA, self.files)

    def _program(self, arch: str) -> Program:
        stem = f"{self.name}.{arch}"
        return sassview.from_artifacts(self.artifacts(stem, arch, self.source.read_text()))

    def _inspection(self, arch: str, kernel: str) -> Inspection:
        p = self.program(arch)
        return inspect_kernel(p, p.kernel(kernel))

    # --- the label tests every corpus' test module runs (tests/test_loop_<name>.py) ---

    def want(self, row: Mapping[str, Any]) -> tuple[tuple[str, int], tuple[tuple[str, int], ...]]:
        """The row's place: its loop's mark, and the marks of the calls it is inlined at."""
        marks = self.marks()
        return marks[row["loop"]], tuple(marks[m] for m in row.get("at", []))

    def here(self, entries: Iterable[LoopEntry], row: Mapping[str, Any]) -> list[LoopEntry]:
        """The entries at the row's place, but ptxas' retry loops (named by what they retry,
        no claim about the statement)."""
        return [e for e in entries if named_place(e) == self.want(row) and e.spin is None]

    def holds(self, entries: Iterable[LoopEntry], row: Mapping[str, Any], arch: str) -> bool:
        """One entry at the row's place, and every labelled key of it as labelled."""
        here = self.here(entries, row)
        label = row.get(arch, row["label"])
        return len(here) == 1 and {k: getattr(here[0], k) for k in label} == label

    def label_params(self) -> list[Any]:
        """(arch, row) for every label on every arch, as pytest parameters with readable ids."""
        return [
            pytest.param(a, r, id="-".join([a, r["kernel"], r["loop"], *r.get("at", [])]))
            for a in ARCHS
            for r in self.labels
        ]

    def entries(self, arch: str) -> Iterator[tuple[str, LoopEntry]]:
        """(kernel name, entry) for every entry of every kernel of the recorded build."""
        for k in self.program(arch).kernels:
            name = k.display_name.split("(")[0]
            for e in self.inspection(arch, name).facts("unroll")["entries"]:
                yield name, e

    def unlabelled(self, statements_only: bool = False) -> list[tuple[str, str, str]]:
        """(arch, kernel, tag) of each entry with code (of a loop statement, if asked) that no
        labelled row names."""
        labelled = {(r["kernel"], *self.want(r)) for r in self.labels}
        return [
            (arch, name, e.tag())
            for arch in ARCHS
            for name, e in self.entries(arch)
            if e.kind != "gone" and (e.statement or not statements_only)
            and (name, *(named_place(e) or ((), ()))) not in labelled
        ]  # fmt: skip

    def live_wrong(self, arch: str) -> list[tuple[str, str, Any]]:
        """(kernel, loop, call marks) of each row a fresh NVRTC compile of the source, with the
        rolled builds live, does not hold."""
        real = sassview.compile(path=self.source, arch=arch, compiler="nvrtc")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(rolled, "build_variant", rolled._compile)
            return [
                (row["kernel"], row["loop"], row.get("at"))
                for row in self.labels
                if not self.holds(
                    inspect_kernel(real, real.kernel(row["kernel"])).facts("unroll")["entries"],
                    row,
                    arch,
                )
            ]
