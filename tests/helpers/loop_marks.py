"""Where a labelled loop corpus' hand labels point: the `// @name` marks in its files. Apart
from the recorded programs (helpers/loop_claims.py needs tests/analyses_data.py and pytest),
so that a benchmark reading a corpus (helpers/copies_corpus.py) needs neither."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

Place = tuple[tuple[str, int], tuple[tuple[str, int], ...]]  # (file name, line), call sites


def source_marks(directory: Path, names: tuple[str, ...]) -> dict[str, tuple[str, int]]:
    """`// @name` -> (file name, line), over a labelled corpus' files: how its tests name the
    lines the hand labels are for."""
    found = {}
    for name in names:
        for number, line in enumerate((directory / name).read_text().splitlines(), 1):
            m = re.search(r"// @(\w+)", line)
            if m:
                found[m.group(1)] = (name, number)
    return found


def named_place(e: Any) -> Place | None:
    """A census entry's place as the marks name it: (file name, line) and its call sites'."""
    if not e.file or not e.line:
        return None
    return (Path(e.file).name, e.line), tuple((Path(c.file).name, c.line) for c in e.inlined_at)
