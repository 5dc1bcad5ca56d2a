"""The `check --json` document as types: one TypedDict per level, its keys in the order the
JSON writes them (report/summary.py orders a kernel's `analysis` by `AnalysisJson`).

docs/json.md documents the same keys; tests/test_json_types.py checks that the two agree, so
a key added to one and not the other fails there. An analysis registered from outside sassview
adds its keys to `analysis` after these (docs/json.md: new fields may appear).
"""

from __future__ import annotations

from typing import Any, TypedDict

from sassview.analyses.loops.entry import LoopJson


class ResourcesJson(TypedDict):
    registers: int
    stack_frame_bytes: int
    spill_store_bytes: int | None  # None: no ptxas report
    spill_load_bytes: int | None
    shared_bytes: int
    shared_reserved_bytes: int
    shared_dynamic_bytes: int | None
    local_bytes: int
    constant_bytes: dict[str, int]
    max_threads: int | None
    maxntid: list[int] | None
    reqntid: list[int] | None
    min_blocks_per_sm: int | None
    max_registers: int | None
    barriers: int
    param_bytes: int | None


class RegisterPeakJson(TypedDict):
    live: int
    address: int | None
    source: str | None
    registers: list[str]


class AnalysisJson(TypedDict):
    """A kernel's `analysis`: each key given by one analysis' facts record (`Facts.summary`),
    but `register_peak` (the kernel's liveness)."""

    loops: list[LoopJson]  # unroll
    partitions: list[str]  # warp_partitions
    max_global_load_bits: int | None  # memory ...
    bulk_global_loads: int
    bulk_global_stores: int
    max_global_store_bits: int | None
    max_shared_load_bits: int | None
    max_shared_store_bits: int | None
    tensor_core_path: str  # tensor_cores
    wgmma_serialized: bool  # ptxas
    tensor_core_ops: list[dict[str, Any]]  # tensor_cores
    cp_async: int  # async_copy
    tma: dict[str, int]
    spills: bool  # spills ...
    spill_store_bytes: int | None
    spill_load_bytes: int | None
    spill_instructions: int
    local_bytes: int
    occupancy: dict[str, Any] | None  # occupancy
    register_budget: dict[str, Any] | None  # register_budget
    schedule: list[dict[str, Any]]  # schedule
    memory_use: dict[str, Any]  # coalescing, bank_conflicts
    warp_roles: list[dict[str, Any]]  # warp_roles
    register_peak: RegisterPeakJson


class StandingJson(TypedDict):
    state: str  # untried | helped | stays | failed (sassview/steer/standing.py)
    knob: str
    outcome: str
    fix: bool  # whether the hint is still offered as a fix


class AnnotationJson(TypedDict):
    kind: str
    severity: str  # info | note | warning
    message: str
    hint: str  # as shown: with its standing, or only the trial's result when not a fix
    addresses: list[int]
    loops: list[int]
    source: list[str]
    standing: StandingJson | None  # None: the hint names no knob (a source edit: advice)


class KernelJson(TypedDict):
    name: str
    display_name: str
    arch: str
    is_entry: bool
    resources: ResourcesJson
    instruction_count: int
    mix: dict[str, int]
    opcodes: dict[str, int]
    analysis: AnalysisJson
    annotations: list[AnnotationJson]


class ProgramJson(TypedDict):
    source: str | None
    label: str | None
    variant: dict[str, Any]
    kind: str
    compiler: str | None
    arch: str
    producer: str
    elf_abi_version: int | None
    options: list[str]
    toolchain: dict[str, str]
    kernels: list[KernelJson]


class CheckDocument(TypedDict):
    schema_version: int
    sassview: str
    toolchain: dict[str, str]
    programs: list[ProgramJson]
    loops_across_archs: list[dict[str, Any]]
