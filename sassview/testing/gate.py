"""A gate for compiler upgrades and code changes: each kernel's normalised listing and facts kept
per toolchain, and a later compile compared with them through the classified diff.

One JSON file per (source, kernel, architecture) under the baseline directory, holding an entry
per toolchain it was recorded with ("13.5", "12.9": the release that compiled). A check compares
a compile with the entry of its own toolchain when there is one, else with the newest entry
(the release upgrade: "12.9 against the baseline's 13.5"), and classifies the change
(report/classify.py). The gate fails on significant and unclear changes and passes on benign
ones; a missing baseline fails too (a gate that passes on nothing recorded checks nothing).
Updating is explicit (`update=True`): only entries that differ are rewritten, each named in the
result, as snapshots are.

How it can be wrong: a kernel renamed, or moved to another file, is a new kernel (its old file
is left for the reviewer to delete); the facts are the sweep's (static), see classify.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sassview.errors import InputError
from sassview.report.classify import BENIGN, Classified, classify

if TYPE_CHECKING:
    from sassview.inspection import Inspection

FORMAT = 1
DEFAULT_DIR = Path(".sassview") / "baseline"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


@dataclass(frozen=True, slots=True)
class Outcome:
    """One kernel against its baseline."""

    path: Path  # the baseline file
    kernel: str  # its display name
    arch: str
    toolchain: str  # the release that compiled it now
    against: str | None  # the release of the entry compared with (None: no entry)
    classified: Classified | None  # None when there was nothing to compare with
    wrote: bool = False  # `update` rewrote (or created) its entry

    @property
    def status(self) -> str:
        """ "same", "benign", "significant", "unclear", "missing" or "written"."""
        if self.wrote:
            return "written"
        if self.classified is None:
            return "missing"
        return self.classified.kind

    @property
    def passed(self) -> bool:
        return self.wrote or self.status in ("same", BENIGN)


def toolchain_of(insp: Inspection) -> str:
    """The release that compiled it: a stored toolchain's, else the ptxas Triton ran, else
    the default NVRTC's."""
    tools = insp.program.artifacts.toolchain
    ran = tools.get("ptxas") if "triton" in tools else tools.get("nvrtc")
    return tools.get("stored") or ran or "default"


def facts_of(insp: Inspection) -> dict[str, Any]:
    from sassview.report.facts import row_values

    return row_values(insp)


def listing_of(insp: Inspection) -> str:
    from sassview.report.normalize import normalize_sass

    return normalize_sass(insp.kernel)


def baseline_file(directory: Path, insp: Inspection) -> Path:
    """Where one kernel's baseline lives: by its source and mangled name, and its arch."""
    source = insp.program.artifacts.source_path or insp.program.artifacts.label or "source"
    try:
        shown = str(Path(source).resolve().relative_to(Path.cwd()))
    except ValueError:
        shown = source
    name = insp.kernel.name
    digest = hashlib.sha256(f"{shown}\0{name}".encode()).hexdigest()[:10]
    stem = _UNSAFE.sub("_", Path(shown).name)[:60]
    kernel = _UNSAFE.sub("_", insp.kernel.display_name.split("(")[0])[:60]
    return directory / stem / f"{kernel}-{digest}@{insp.arch}.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InputError(
            f"{path}: not a sassview baseline ({exc})",
            "delete it and record again with --update",
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{path}: not a sassview baseline", "record again with --update")
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def _write(path: Path, insp: Inspection, entries: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT,
        "source": insp.program.artifacts.source_path,
        "kernel": insp.kernel.name,
        "arch": insp.arch,
        "entries": entries,
    }
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, path)


def _newest(entries: dict[str, Any]) -> str | None:
    def release(name: str) -> tuple[int, ...]:
        return tuple(int(x) for x in name.split(".") if x.isdigit())

    return max(entries, key=release) if entries else None


def check_kernel(directory: Path, insp: Inspection, *, update: bool = False) -> Outcome:
    """Compare one kernel with its baseline; with `update`, (re)write its entry if it differs."""
    path = baseline_file(directory, insp)
    entries = _read(path)
    toolchain = toolchain_of(insp)
    against = toolchain if toolchain in entries else _newest(entries)
    facts, listing = facts_of(insp), listing_of(insp)
    classified = None
    if against is not None:
        old = entries[against]
        classified = classify(old["facts"], old["listing"], facts, listing)
    name = insp.kernel.display_name
    if update and (against != toolchain or (classified and classified.kind != "same")):
        entries[toolchain] = {"facts": facts, "listing": listing}
        _write(path, insp, entries)
        return Outcome(path, name, insp.arch, toolchain, against, classified, wrote=True)
    return Outcome(path, name, insp.arch, toolchain, against, classified)
