"""The warp model's modulo, division and lane-guard forms on kernels counted by hand
(tests/data/analyses/sources/lane_forms.cu: each kernel's comment gives its answer), in the
four models of analyses_data on sm_80 and sm_90a. The PTX derivation agrees on every one of
them too (tests/test_coalescing.py, case lane_forms).
"""

from __future__ import annotations

from typing import Any

import pytest
from analyses_data import MODES, program

from sassview.analyses import bank_conflicts, coalescing
from sassview.analyses.base import AnalysisContext, Findings, Severity

ARCHS = ["sm_80", "sm_90a"]


def run(module: Any, mode: str, arch: str, kernel: str) -> Findings:
    prog = program(mode, "lane_forms", arch)
    ctx = AnalysisContext(prog, prog.kernel(kernel), None, (), None)  # type: ignore[arg-type]
    return module.run(ctx)  # type: ignore[no-any-return]


def shapes(f: Findings, *keys: str) -> set[tuple[Any, ...]]:
    return {tuple(a[k] for k in keys) for a in f.facts["accesses"]}


GLOBAL = ("direction", "active_lanes", "sectors", "min_sectors")
# kernel -> every (direction, lanes that run it, sectors, fewest sectors for those lanes)
SECTORS: dict[str, set[tuple[Any, ...]]] = {
    "ring": {("load", 32, 4, 4), ("store", 32, 4, 4)},
    "ring20": {("load", 32, None, 4), ("store", 32, 4, 4)},
    "by_three": {("load", 32, 11, 4), ("store", 32, 4, 4)},
    "mod_three": {("load", 32, 3, 4), ("store", 32, 4, 4)},
    "half_warp": {("load", 16, 4, 2), ("store", 16, 2, 2)},
    "upper_lanes": {("load", 24, 3, 3), ("store", 24, 3, 3)},
    "even_lanes": {("load", 16, 4, 2), ("store", 16, 4, 2)},
    "unsigned_window": {("load", 20, 4, 3), ("store", 20, 4, 3)},
    "tile_col8": {("store", 8, 1, 1)},
    "ring_shared": {("store", 32, 4, 4)},
    "signed_mod20": {("load", 32, 20, 4), ("store", 32, 4, 4)},
    "signed_ring20": {("load", 32, None, 4), ("store", 32, 4, 4)},
}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_sectors_of_modulo_division_and_guarded_forms(mode: str, arch: str) -> None:
    for kernel, expected in SECTORS.items():
        assert shapes(run(coalescing, mode, arch, kernel), *GLOBAL) == expected, kernel


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_a_ring_is_counted_at_every_position_or_said_unknown(mode: str, arch: str) -> None:
    # (threadIdx.x + r) % 256: 4 sectors at each of the 32 positions r % 256 the alignment
    # assumption leaves (r a multiple of 8 floats), and the fact says so.
    (load,) = [a for a in run(coalescing, mode, arch, "ring").facts["accesses"] if a["bits"]
               and a["direction"] == "load"]  # fmt: skip
    assert load["coalesced"] is True and "wrapping every 1024 bytes" in load["pattern"]
    assert "32 positions, 4 sectors at each" in load["assumption"]
    # % 20 is a division by a constant of a value with a run-time part: unknown, and why.
    (load,) = [a for a in run(coalescing, mode, arch, "ring20").facts["accesses"]
               if a["direction"] == "load"]  # fmt: skip
    assert load["coalesced"] is None and "divides by a constant" in load["unknown"]
    # The signed form (int t, IMAD.HI): unknown too, saying why, naming the argument r.
    (load,) = [a for a in run(coalescing, mode, arch, "signed_ring20").facts["accesses"]
               if a["direction"] == "load"]  # fmt: skip
    why = load["unknown"]
    assert load["coalesced"] is None and "divides by a constant that is not a power" in why
    # by its name where the kernel's source is read (a live compile: param_names), else by
    # its constant-bank slot (the recorded programs carry no source path to read)
    named = "(r)" if mode == "live" else "(c[0x0]["
    assert f"run-time part {named}" in why and "not only on the lanes" in why
    # The shared ring: (threadIdx.x + r) mod 32 is a permutation of the banks for every r.
    f = run(bank_conflicts, mode, arch, "ring_shared")
    assert shapes(f, "direction", "wavefronts", "ways") == {("store", 1, 1), ("load", 1, 1)}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("mode", MODES)
def test_lanes_switched_off_by_a_guard_on_the_lane_are_not_counted(mode: str, arch: str) -> None:
    f = run(coalescing, mode, arch, "half_warp")
    (finding,) = f.annotations  # 4 sectors where the 16 running lanes need 2
    assert finding.kind == "uncoalesced" and finding.severity is Severity.NOTE
    assert (finding.data["sectors"], finding.data["min_sectors"]) == (4, 2)
    assert run(coalescing, mode, arch, "upper_lanes").annotations == ()
    # Shared: 8 lanes of one column, 8-way, not the 32-way of the store by every lane.
    f = run(bank_conflicts, mode, arch, "tile_col8")
    assert shapes(f, "direction", "wavefronts", "ideal", "ways") == {
        ("store", 32, 1, 32),
        ("load", 8, 1, 8),
    }
    # Branches: the if side's 16 lanes, the else side's 16, every lane after the join.
    f = run(coalescing, mode, arch, "if_else")
    known = shapes(f, "direction", "active_lanes", "sectors", "min_sectors", "stride")
    assert {("load", 16, 16, 2, 256), ("load", 16, 2, 2, 4), ("store", 32, 4, 4, 4)} <= known
    looped = [a for a in f.facts["accesses"] if a["sectors"] == 16]
    assert looped and all(a["in_loop"] for a in looped[1:])


@pytest.mark.parametrize("case", ["coalescing", "lane_forms"])
@pytest.mark.parametrize("arch", ARCHS)
def test_the_one_call_access_answers_as_the_general_path(arch: str, case: str) -> None:
    # WarpModel.access (the memory analyses' fast path) must give every memory access of the
    # recorded kernels the lanes and the address that active + address_parts give, each on
    # a model of its own (no memo shared), in address order and in reverse.
    from sassview.analyses.memory import kernel_accesses
    from sassview.graph.cfg import build_cfg
    from sassview.graph.lanes import WarpModel
    from sassview.graph.loops import find_loops

    prog = program("json", case, arch)
    for k in prog.kernels:
        cfg = build_cfg(k.instructions)
        loops = find_loops(cfg, k.instructions)
        at = {ins.address: n for n, ins in enumerate(k.instructions)}
        asked = [(at[a.address], a.operand) for a in kernel_accesses(k) if a.operand is not None]
        assert asked, k.name
        for order in (asked, asked[::-1]):
            fast, general = (
                WarpModel(k.instructions, cfg, loops),
                WarpModel(k.instructions, cfg, loops),
            )
            for n, op in order:
                expected = (general.active(n), *general.address_parts(n, op))
                assert fast.access(n, op) == expected, (k.name, hex(k.instructions[n].address))
