"""The model's pickled shape (sassview/cache/model_pickle.py): what every view shows of a loaded
model is what it shows of a fresh build, the loaded records share their repeated strings, and
the loaded objects are old to the collector. Speed is benchmarks/bench_warm.py's."""

from __future__ import annotations

import dataclasses
import gc
import io
import json
import pickle
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.model_cases import CASES, _no_assembly

from sassview import build, export
from sassview.cache.model_pickle import ModelPickler
from sassview.inspection import Inspection, inspect_program
from sassview.ir import (
    Artifacts,
    ControlCode,
    Program,
    PtxInstruction,
    SassInstruction,
    SourceLoc,
)
from sassview.report.summary import program_summary


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path / "cache"))


def _views(program: Program, inspections: list[Inspection]) -> dict[str, str]:
    """What `check --json` prints of `program` and each kernel's export in every format."""
    views = {"check --json": json.dumps(program_summary(program, inspections), indent=1)}
    for insp in inspections:
        for fmt in export.FORMATS:
            views[f"{insp.kernel.name} {fmt}"] = export.render(insp, fmt)
    return views


def _loaded(artifacts: Artifacts, monkeypatch: pytest.MonkeyPatch) -> Program:
    """The model of `artifacts` and its Inspections as a later run loads them."""
    inspect_program(build.build_program(artifacts))  # built, analysed, cached together
    _no_assembly(monkeypatch)
    loaded = build.build_program(artifacts)
    assert build.analyses_of(loaded)  # served with its Inspections
    return loaded


@pytest.mark.parametrize("case", CASES)
def test_every_view_shows_a_loaded_model_as_it_shows_a_fresh_build(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    artifacts = CASES[case]()
    fresh = build.assemble_program(artifacts)  # no cache at all
    expected = _views(fresh, inspect_program(fresh))
    loaded = _loaded(artifacts, monkeypatch)
    assert _views(loaded, inspect_program(loaded)) == expected


def test_the_records_of_a_loaded_model_share_their_repeated_strings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loaded = _loaded(CASES["cuda:tiled/sm_100a"](), monkeypatch)
    sass = [i for k in loaded.kernels for i in k.instructions]
    ptx = [p for k in loaded.kernels if k.ptx for p in k.ptx.instructions]
    fields: dict[str, Callable[[], list[str | tuple[str, ...]]]] = {
        "SASS opcodes": lambda: [i.opcode for i in sass],
        "SASS modifiers": lambda: [i.modifiers for i in sass if i.modifiers],
        "SASS source files": lambda: [i.source.file for i in sass if i.source],
        "PTX operands": lambda: [op for p in ptx for op in p.operands],
    }
    for name, values in fields.items():
        found = values()
        equal = len(set(found))
        assert len(found) > equal, name  # the kernel repeats them, or this proves nothing
        assert len({id(v) for v in found}) == equal, name  # each value one object


def test_the_records_of_a_loaded_model_keep_their_types(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows loaded as plain tuples would still compare equal to the records (a NamedTuple
    equals the tuple of its fields): the equality tests alone would not see it."""
    loaded = _loaded(CASES["cuda:tiled/sm_100a"](), monkeypatch)
    for kernel in loaded.kernels:
        assert type(kernel.instructions) is tuple and kernel.ptx is not None
        assert {type(i) for i in kernel.instructions} == {SassInstruction}
        assert {type(i.source) for i in kernel.instructions} <= {SourceLoc, type(None)}
        assert {type(p) for p in kernel.ptx.instructions} == {PtxInstruction}
        assert {type(c) for c in kernel.control} == {ControlCode}


@pytest.mark.parametrize("how", ["built", "loaded"])
def test_a_model_is_old_to_the_collector(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Left in the young generations, the collections that follow would rescan every record
    it built or loaded (sassview.gcpause.without_gc)."""
    if gc.get_freeze_count():  # objects another test froze (the TUI's) would keep it young
        gc.unfreeze()
    artifacts = CASES["cuda:vecadd/sm_90a"]()
    if how == "loaded":
        inspect_program(build.build_program(artifacts))  # cached with its Inspections
        _no_assembly(monkeypatch)
    gc.collect()  # every generation's count from zero: only what follows moves the records
    program = build.build_program(artifacts)
    # What the build or the pickle made (a loaded Program and its Inspections are made after).
    records = {id(r) for k in program.kernels for r in (k, k.instructions, k.resources, k.ptx)}
    if how == "built":
        inspections = inspect_program(program)
        records |= {id(r) for i in inspections for r in (i, i.cfg, i.liveness, i.findings)}
    young = gc.get_objects(generation=0) + gc.get_objects(generation=1)
    assert len(records) == (4 if how == "loaded" else 8) * len(program.kernels)
    assert not [o for o in young if id(o) in records]


def test_objects_a_process_froze_stay_frozen_when_a_model_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    artifacts = CASES["cuda:vecadd/sm_90a"]()
    inspect_program(build.build_program(artifacts))
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        _loaded(artifacts, monkeypatch)
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()


class _Marked(SassInstruction):  # a record type of someone's own (module level: pickled by name)
    __slots__ = ()


def test_a_kernel_holding_other_records_round_trips_as_it_is() -> None:
    """Rows are for a tuple of exactly the kernel's record type; anything else is pickled as
    itself (rows would load a subclass as its base)."""
    kernel = build.assemble_program(CASES["cuda:vecadd/sm_90a"]()).kernels[0]
    first, *rest = kernel.instructions
    odd = dataclasses.replace(kernel, instructions=(_Marked(*first), *rest))
    buffer = io.BytesIO()
    ModelPickler(buffer).dump(odd)
    loaded = pickle.loads(buffer.getvalue())
    assert loaded == odd
    assert [type(i) for i in loaded.instructions] == [type(i) for i in odd.instructions]
