"""One labelled loop corpus as its record script recorded it (NVRTC, sm_80 and sm_90a): the
real build's program, the rolled builds the census asks (loops/rolled.py) where they were
recorded, the hand labels (labels_<name>.json) and the `// @name` marks that place them. Each
corpus module (copies_corpus.py, shapes2_corpus.py, mactile_corpus.py, ...) is one of these,
read by its tests/test_loop_<name>.py and benchmarks/loop_copies_accuracy.py alike, so that the
benchmark imports no test module."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import sassview
from helpers.loop_marks import source_marks
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
