"""The cached model: a loaded model equals a built one, and a bad entry is rebuilt, never served.

Each test has a cache of its own (the model entries of other tests must not answer for it). The
recorded cases are one per frontend: NVRTC and nvcc compiles of the corpus, a Triton cubin with
its stages and launch metadata, a CuTe DSL kernel's PTX assembled by nvJitLink.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
from pathlib import Path
from types import MappingProxyType

import pytest
from helpers.model_cases import CASES, _cuda, _no_assembly

from sassview import build
from sassview.cache import Store, pickled
from sassview.inspection import inspect_program
from sassview.ir import Artifacts, Program


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path / "cache"))


def _entries() -> list[Path]:
    return sorted(Store(build.MODEL).root.glob("*/*/object.pickle"))


@pytest.mark.parametrize("case", CASES)
def test_a_loaded_model_and_its_inspections_equal_those_built_afresh(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    artifacts = CASES[case]()
    fresh = build.assemble_program(artifacts)  # no cache at all
    built = build.build_program(artifacts)
    assert built == fresh
    assert build.analyses_of(built) == ()  # the model alone is cached so far
    computed = inspect_program(built)  # ...and with its inspections from here on
    _no_assembly(monkeypatch)
    loaded = build.build_program(artifacts)
    assert loaded is not built
    assert loaded == fresh
    served = inspect_program(loaded)
    assert [i.program for i in served] == [loaded] * len(served)
    assert all(i.kernel is k for i, k in zip(served, loaded.kernels, strict=True))
    assert served == computed == inspect_program(dataclasses.replace(fresh))
    assert [i.kernel.name for i in inspect_program(loaded, fresh.kernels[-1].name)] == [
        fresh.kernels[-1].name
    ]
    assert len(_entries()) == 1  # the model with its inspections replaced the model alone


def test_a_damaged_model_entry_is_rebuilt_not_served(monkeypatch: pytest.MonkeyPatch) -> None:
    artifacts = _cuda("vecadd/sm_90a")
    built = build.build_program(artifacts)
    (entry,) = _entries()
    data = bytearray(entry.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit, the size unchanged: only the digest tells
    entry.write_bytes(bytes(data))
    assembled: list[Program] = []
    real = build.assemble_program

    def spy(*args: Artifacts, **kwargs: str) -> Program:
        assembled.append(real(*args, **kwargs))
        return assembled[-1]

    monkeypatch.setattr(build, "assemble_program", spy)
    assert build.build_program(artifacts) == built
    assert len(assembled) == 1
    _no_assembly(monkeypatch)
    assert build.build_program(artifacts) == built  # the rebuilt entry is served


def _plant(key: str, obj: object, meta: dict[str, object]) -> None:
    """An entry in sassview's layout, with a valid manifest, that sassview did not write."""
    Store(build.MODEL).put(key, {pickled.FILE: pickle.dumps(obj)}, meta)


_tripped: list[str] = []


def _tripwire() -> str:
    _tripped.append("unpickled")
    return "tripped"


class _Tripwire:
    def __reduce__(self) -> tuple[object, ...]:
        return (_tripwire, ())


@pytest.mark.parametrize(
    "meta",
    [
        pytest.param({}, id="no-writer"),
        pytest.param({"writer": "someone", "pickle": 1}, id="other-writer"),
        pytest.param(
            {"writer": "sassview", "pickle": pickled.PICKLE_FORMAT, "code": "0" * 64},
            id="other-code",
        ),
        pytest.param({"writer": "sassview", "pickle": 99}, id="other-format"),
        pytest.param(  # an entry of the format before (cache/model_pickle.py), all else right
            {
                "writer": "sassview",
                "pickle": pickled.PICKLE_FORMAT - 1,
                "code": pickled.code_version(),
            },
            id="previous-format",
        ),
    ],
)
def test_an_entry_sassview_did_not_write_for_this_code_is_never_unpickled(
    meta: dict[str, object],
) -> None:
    artifacts = _cuda("vecadd/sm_90a")
    key = build.model_key(artifacts)
    _plant(key, _Tripwire(), meta)
    _tripped.clear()
    program = build.build_program(artifacts)
    assert _tripped == []
    assert program == build.assemble_program(artifacts)
    assert pickled.get(build.MODEL, key, lambda o: True) is not None  # replaced by sassview's


def test_an_entry_of_the_wrong_shape_is_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    artifacts = _cuda("vecadd/sm_90a")
    key = build.model_key(artifacts)
    meta = {"writer": "sassview", "pickle": pickled.PICKLE_FORMAT, "code": pickled.code_version()}
    _plant(key, ("not", "a", "model"), meta)
    assert build.build_program(artifacts) == build.assemble_program(artifacts)


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Artifacts)])
def test_the_model_key_changes_with_every_field_of_the_artifacts(field: str) -> None:
    artifacts = _cuda("vecadd/sm_90a")
    value = getattr(artifacts, field)
    changed: object
    if isinstance(value, bytes):
        changed = value + b"\0"
    elif isinstance(value, str):
        changed = value + "x"
    elif isinstance(value, tuple):
        changed = (*value, "x")
    elif value is None:
        changed = "x"
    else:  # a mapping
        changed = {**value, "x": "y"}
    other = dataclasses.replace(artifacts, **{field: changed})
    assert build.model_key(other) != build.model_key(artifacts)


def test_the_model_key_changes_with_nvdisasm_and_with_sassview_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    artifacts = _cuda("vecadd/sm_90a")
    key = build.model_key(artifacts)
    monkeypatch.setattr(build, "nvdisasm_version", lambda: "99.0.0")
    assert build.model_key(artifacts) != key
    monkeypatch.undo()
    monkeypatch.setattr(pickled, "code_version", lambda: "0" * 64)
    assert build.model_key(artifacts) != key


def test_a_program_changed_by_hand_has_no_cached_inspections() -> None:
    artifacts = _cuda("tiled/sm_90a")
    program = build.build_program(artifacts)
    inspect_program(program)
    loaded = build.build_program(artifacts)
    assert build.analyses_of(loaded)
    kernel = loaded.kernels[0]
    shorter = dataclasses.replace(kernel, instructions=kernel.instructions[:-1])
    changed = dataclasses.replace(loaded, kernels=(shorter,))
    assert build.analyses_of(changed) is None
    (inspection,) = inspect_program(changed)
    assert inspection.kernel is shorter


def test_two_compiles_that_differ_only_in_ptxas_compile_times_share_a_model() -> None:
    artifacts = _cuda("vecadd/sm_90a")
    assert "Compile time = " in artifacts.compile_log
    other = dataclasses.replace(
        artifacts, compile_log=artifacts.compile_log.replace("Compile time = ", "Compile time = 9")
    )
    assert build.model_key(other) == build.model_key(artifacts)
    built = build.build_program(artifacts)
    loaded = build.build_program(other)
    assert loaded.artifacts is other  # the caller's artifacts, its own log included
    assert dataclasses.replace(loaded, artifacts=artifacts) == built


def test_a_cached_models_first_kernel_comes_before_the_rest_of_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    artifacts = _cuda("whole_program/sm_90a")  # three kernels
    computed = inspect_program(build.build_program(artifacts))  # cached with its analyses
    _no_assembly(monkeypatch)
    events: list[object] = []
    real = pickled._next

    def loads(stream: pickle.Unpickler) -> object:
        events.append("unpickled")
        return real(stream)

    monkeypatch.setattr(pickled, "_next", loads)
    with build.first_kernel(events.append):
        loaded = build.build_program(artifacts)
        again = build.build_program(artifacts)  # only the first model of the block is shown
    assert events[0] == "unpickled" and events[2:] == ["unpickled", "unpickled", "unpickled"]
    first = events[1]
    assert isinstance(first, build.FirstKernel)
    assert first.inspection["kernel"] is loaded.kernels[0]  # the loaded model's own objects
    served = inspect_program(loaded)
    assert all(first.inspection[name] is getattr(served[0], name) for name in first.inspection)
    assert set(first.inspection) == {f.name for f in dataclasses.fields(served[0])} - {"program"}
    assert first.artifacts == loaded.artifacts
    assert served == computed and again == loaded
    (entry,) = _entries()
    lead = pickle.Unpickler(io.BytesIO(entry.read_bytes())).load()
    assert not _holds(lead, Program)  # the first kernel's part holds none of the others


def _holds(obj: object, cls: type, seen: set[int] | None = None) -> bool:
    """Whether `obj` is or refers to an instance of `cls` (through containers and fields)."""
    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, str | bytes | int | float | type(None)):
        return False
    seen.add(id(obj))
    if isinstance(obj, cls):
        return True
    if isinstance(obj, dict | MappingProxyType):
        children: list[object] = [*obj.keys(), *obj.values()]
    elif isinstance(obj, tuple | list | set | frozenset):
        children = list(obj)
    elif dataclasses.is_dataclass(obj):
        children = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    else:
        children = list(getattr(obj, "__dict__", {}).values())
    return any(_holds(c, cls, seen) for c in children)


def test_no_first_kernel_is_shown_outside_the_block_or_for_a_model_without_analyses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    artifacts = _cuda("spill/sm_80")
    shown: list[build.FirstKernel] = []
    with build.first_kernel(shown.append):
        built = build.build_program(artifacts)  # assembled: nothing cached to show early
    with build.first_kernel(shown.append):
        build.build_program(artifacts)  # cached, but without its analyses yet
    inspect_program(built)
    build.build_program(artifacts)  # cached with them, but no block asks
    assert shown == []
