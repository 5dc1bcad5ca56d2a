"""The analyses' typed facts (sassview/analyses/facts.py): each is its analysis' record, reads
as the same mapping it was before, and the JSON written from it keeps its keys and order."""

from __future__ import annotations

import dataclasses
import json
import pickle
from pathlib import Path
from typing import Any, ClassVar, Literal, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from conftest import corpus_dirs, corpus_id
from cute_data import recorded

import sassview
from sassview import export
from sassview.analyses import REGISTRY, facts_record, occupancy
from sassview.analyses.base import AnalysisContext
from sassview.analyses.facts import Facts, Record, plain
from sassview.analyses.loops.entry import LoopJson, LoopKey, UnrollFacts
from sassview.analyses.records import (
    BankFacts,
    CoalescingFacts,
    OccupancyFacts,
    Partition,
    RegisterBudgetFacts,
    RegisterCapFacts,
    TritonStrideFacts,
    WarpPartitionFacts,
    WarpRoleFacts,
)
from sassview.analyses.records_compute import PtxasFacts, ScheduleFacts, TensorCoreFacts
from sassview.analyses.records_memory import (
    AsyncCopyFacts,
    MbarrierKind,
    MbarrierOps,
    MemoryFacts,
    SpillFacts,
)
from sassview.api import load_triton_cache
from sassview.inspection import Inspection, inspect_program

TYPED: tuple[type[Facts], ...] = (
    MemoryFacts,
    SpillFacts,
    AsyncCopyFacts,
    TensorCoreFacts,
    PtxasFacts,
    ScheduleFacts,
    UnrollFacts,
    OccupancyFacts,
    RegisterBudgetFacts,
    CoalescingFacts,
    BankFacts,
    RegisterCapFacts,
    TritonStrideFacts,
    WarpPartitionFacts,
    WarpRoleFacts,
)
DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("case", corpus_dirs(), ids=corpus_id)
def test_recorded_kernels_carry_typed_facts_that_read_as_before(case: object) -> None:
    for insp in sassview.inspect(case / "kernel.cubin"):  # type: ignore[operator]
        doc = json.loads(export.render(insp, "json"))
        for kind in TYPED:
            facts = insp.typed_facts(kind)
            assert insp.facts(kind.ANALYSIS) is facts
            hidden = facts._hidden()
            fields = [f.name for f in dataclasses.fields(kind)]  # type: ignore[arg-type]
            names = [n for n in fields if n not in hidden]
            assert list(facts) == names and len(facts) == len(names)
            assert all(facts[n] is getattr(facts, n) for n in names)
            # export/json_graph.py writes unroll's typed `entries` once, as their JSON `loops`
            assert set(doc["facts"][kind.ANALYSIS]) == set(names) - {"entries"}


def test_a_fact_that_is_not_a_field_is_a_key_error() -> None:
    (insp,) = sassview.inspect(corpus_dirs()[0] / "kernel.cubin")[:1]
    with pytest.raises(KeyError):
        insp.facts("memory")["max_global_load_bit"]
    assert insp.facts("memory").get("max_global_load_bit") is None


def test_typed_facts_equal_the_dict_they_were() -> None:
    (insp,) = sassview.inspect(corpus_dirs()[0] / "kernel.cubin")[:1]
    for kind in TYPED:
        facts = insp.typed_facts(kind)
        assert facts == dict(facts) and dict(facts) == facts


def _subclasses(base: type[Record]) -> set[type[Record]]:
    """Every record class below `base`. `dataclass(slots=True)` makes a new class and leaves
    the one it was given among the subclasses: only those with slots of their own count."""
    found = set(base.__subclasses__())
    every = found.union(*(_subclasses(c) for c in found))
    return {c for c in every if "__slots__" in vars(c)}


def _inspections() -> list[Inspection]:
    """Kernels that give every analysis something to say: the recorded corpus, a setmaxnreg
    kernel (register budgets), a warp-specialised CuTe DSL kernel (warp roles) and a Triton
    cache (its runtime strides)."""
    found = [i for case in corpus_dirs() for i in sassview.inspect(case / "kernel.cubin")]
    found += sassview.inspect(DATA / "analyses" / "setmaxnreg" / "sm_90a" / "kernel.cubin")
    found.append(recorded("cute_warp_specialized", "sm_90a-1"))
    for entry in sorted((DATA / "triton_cache").iterdir()):
        found += [i for p in load_triton_cache(entry) for i in inspect_program(p)]
    return found


def test_every_analysis_in_the_registry_answers_with_its_typed_record() -> None:
    """A new analysis that returns a dict (or another analysis' record) fails here: its facts
    would be read by string keys, a renamed one found by no type checker."""
    # sassview's own records (a test's toy analysis has one too: test_analysis_registry.py)
    kinds = {k.ANALYSIS: k for k in _subclasses(Facts) if k.__module__.startswith("sassview.")}
    assert set(REGISTRY) <= set(kinds), f"no Facts record for {set(REGISTRY) - set(kinds)}"
    assert {name: facts_record(name) for name in REGISTRY} == {n: kinds[n] for n in REGISTRY}
    assert set(TYPED) == set(kinds.values())
    for insp in _inspections():
        assert set(insp.findings) == set(REGISTRY)
        for name in REGISTRY:
            facts = insp.findings[name].facts
            assert type(facts) is kinds[name], (name, type(facts))
            assert insp.typed_facts(kinds[name]) is facts


def _same_keys(record: Any, written: Any, where: str) -> None:
    """Every record in `record` is written with its fields as keys, nested ones too."""
    if isinstance(record, Record):
        assert isinstance(written, dict), where
        assert sorted(written) == sorted(record), where
        for k in record:
            _same_keys(record[k], written[k], f"{where}.{k}")
    elif isinstance(record, (list, tuple)):
        assert isinstance(written, list) and len(written) == len(record), where
        for n, (r, w) in enumerate(zip(record, written, strict=True)):
            _same_keys(r, w, f"{where}[{n}]")
    elif isinstance(record, dict):
        for k, v in record.items():
            _same_keys(v, written[str(k)], f"{where}.{k}")


def test_the_json_writers_emit_every_field_of_every_record_as_a_key() -> None:
    """The export writes each record's fields as its keys (nested records too: warp roles and
    their waits, occupancy points, register budgets, partitions), and `plain` gives the same
    dicts `check --json` writes; a record pickles (the model cache) to an equal one."""
    seen: set[type[Record]] = set()
    for insp in _inspections():
        doc = json.loads(export.render(insp, "json"))["facts"]
        for name, found in insp.findings.items():
            facts = found.facts
            assert isinstance(facts, Facts)
            shown = {k: v for k, v in facts.items() if k != "entries"}  # unroll's, see above
            _same_keys(shown, doc[name], name)
            written = json.loads(json.dumps(plain(dict(shown)), default=str))
            assert sorted(written) == sorted(doc[name]), name
            again = pickle.loads(pickle.dumps(facts))
            assert type(again) is type(facts) and again == facts
            seen |= {type(facts)} | _records_in(facts)
    # A partition needs a warp-specialized Triton compile: test_triton_partitions.py reads it.
    nested = _subclasses(Record) - _subclasses(Facts) - {Facts, Partition}
    assert nested <= seen, f"records never seen in a fact: {nested - seen}"


def _records_in(value: Any) -> set[type[Record]]:
    if isinstance(value, Record):
        return {type(value)}.union(*(_records_in(v) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(_records_in(v) for v in value))
    if isinstance(value, dict):
        return set().union(*(_records_in(v) for v in value.values()))
    return set()


def test_facts_of_no_result_keep_the_keys_they_had() -> None:
    """Occupancy on an architecture with no table, and register budgets of a kernel without
    setmaxnreg, read as the three and two keys they had as dicts; their other fields are not
    facts of that result."""
    (insp,) = sassview.inspect(corpus_dirs()[0] / "kernel.cubin")[:1]
    kernel = dataclasses.replace(insp.kernel, arch="sm_110")
    ctx = AnalysisContext(insp.program, kernel, insp.cfg, insp.loops, insp.liveness)
    facts = occupancy.run(ctx).facts
    assert isinstance(facts, OccupancyFacts) and not facts.known
    assert list(facts) == ["known", "arch", "block_source"]
    assert facts == {"known": False, "arch": "sm_110", "block_source": None}
    budget = insp.typed_facts(RegisterBudgetFacts)
    assert list(budget) == ["budgets", "text"] and budget == {"budgets": [], "text": None}
    with pytest.raises(KeyError):
        budget["pool"]


def _untyped(hint: Any, where: str, seen: set[Any]) -> list[str]:
    """Where in `hint` (a field's annotation) a fact is Any, so read by key with no type: a
    bare `dict[str, Any]`, a `list[Any]`, a TypedDict or dataclass field of Any, at any depth."""
    if hint is Any:
        return [where]
    if isinstance(hint, type) and (is_typeddict(hint) or dataclasses.is_dataclass(hint)):
        if hint in seen:
            return []
        seen.add(hint)
        names = (
            set(get_type_hints(hint))
            if is_typeddict(hint)
            else {f.name for f in dataclasses.fields(hint)}
        )
        hints = get_type_hints(hint)
        return [bad for n in sorted(names) for bad in _untyped(hints[n], f"{where}.{n}", seen)]
    if get_origin(hint) in (Literal, ClassVar):
        return []
    return [bad for arg in get_args(hint) for bad in _untyped(arg, f"{where}[]", seen)]


def test_no_fact_of_any_record_is_untyped_at_any_depth() -> None:
    """Every field of every facts record, and every key of the records and TypedDicts inside
    them, has a type: a renamed key of a nested fact (a wait, a tensor op, a spill line) is a
    mypy error in its readers, not a KeyError a view finds. A new fact of `dict[str, Any]` (or
    one holding a TypedDict or record with an Any in it) fails here."""
    found: list[str] = []
    records = [c for c in _subclasses(Record) if dataclasses.is_dataclass(c)]
    assert set(TYPED) <= set(records)
    for record in sorted(records, key=lambda c: c.__qualname__):
        hints = get_type_hints(record)
        for f in dataclasses.fields(record):  # type: ignore[arg-type]
            found += _untyped(hints[f.name], f"{record.__qualname__}.{f.name}", set())
    assert not found, f"untyped facts: {found}"


def test_the_key_lists_beside_a_typed_dict_name_its_keys() -> None:
    """`LoopKey` lists `LoopJson`'s keys for the report's pick of them, `MbarrierKind` the
    counts of `MbarrierOps`: each pair stays one list (mypy checks one way only)."""
    assert set(get_args(LoopKey)) == set(get_type_hints(LoopJson))
    assert set(get_args(MbarrierKind)) == set(get_type_hints(MbarrierOps)) - {"by_mnemonic"}


def test_every_module_of_analyses_is_an_analysis_or_a_named_helper() -> None:
    """analyses/ holds the registry's analyses and the helpers its HELPERS table names, and
    nothing else: a module neither lists is one a reader cannot place."""
    from sassview.analyses import HELPERS

    folder = Path(sassview.analyses.__file__).parent
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    modules |= {p.parent.name for p in folder.glob("*/__init__.py")}
    analyses = {m.rsplit(".", 1)[-1] for m in REGISTRY.values()}
    assert not analyses & set(HELPERS), "a module is both an analysis and a helper"
    assert modules == analyses | set(HELPERS), (modules - analyses - set(HELPERS)) or (
        analyses | set(HELPERS)
    ) - modules
