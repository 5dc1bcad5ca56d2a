"""Mutated real listings and cubins: no exception but sassview's ParseError escapes a reader.

A short run here (CI); `python tests/fuzz/campaign.py` runs the long one (see FINDINGS.md).
Each input that once crashed a reader is kept in tests/fuzz/regressions/ and replayed below.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from fuzz.mutate import mutate, seeds
from fuzz.targets import TARGETS, run_target
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REGRESSIONS = Path(__file__).parent / "regressions"
SEEDS = {name: seeds(pattern)[:6] for name, (pattern, _) in TARGETS.items()}


@pytest.mark.parametrize("name", sorted(TARGETS))
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 5))
def test_mutated_inputs_raise_only_parse_errors(name: str, seed: int, which: int) -> None:
    inputs = SEEDS[name]
    data = mutate(inputs[which % len(inputs)], random.Random(seed))
    run_target(name, data)


@pytest.mark.parametrize("name", sorted(TARGETS))
@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=512))
def test_arbitrary_bytes_raise_only_parse_errors(name: str, data: bytes) -> None:
    run_target(name, data)


@pytest.mark.parametrize(
    "path", sorted(REGRESSIONS.glob("*/*")), ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_inputs_that_once_crashed_a_reader(path: Path) -> None:
    run_target(path.parent.name, path.read_bytes())
