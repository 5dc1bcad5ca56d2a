"""The analyses' typed facts (sassview/analyses/facts.py): each is its analysis' record, reads
as the same mapping it was before, and the JSON written from it keeps its keys and order."""

from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import corpus_dirs, corpus_id

import sassview
from sassview import export
from sassview.analyses.async_copy import AsyncCopyFacts
from sassview.analyses.facts import Facts
from sassview.analyses.loops.entry import UnrollFacts
from sassview.analyses.memory_width import MemoryFacts
from sassview.analyses.ptxas_advice import PtxasFacts
from sassview.analyses.schedule import ScheduleFacts
from sassview.analyses.spills import SpillFacts
from sassview.analyses.tensor_cores import TensorCoreFacts

TYPED: tuple[type[Facts], ...] = (
    MemoryFacts,
    SpillFacts,
    AsyncCopyFacts,
    TensorCoreFacts,
    PtxasFacts,
    ScheduleFacts,
    UnrollFacts,
)


@pytest.mark.parametrize("case", corpus_dirs(), ids=corpus_id)
def test_recorded_kernels_carry_typed_facts_that_read_as_before(case: object) -> None:
    for insp in sassview.inspect(case / "kernel.cubin"):  # type: ignore[operator]
        doc = json.loads(export.render(insp, "json"))
        for kind in TYPED:
            facts = insp.typed_facts(kind)
            assert insp.facts(kind.ANALYSIS) is facts
            names = [f.name for f in dataclasses.fields(kind)]  # type: ignore[arg-type]
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
