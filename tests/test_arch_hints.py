"""An architecture sassview suggests exists and has what the code needs: every suggestion comes
from one table (sassview.frontends.arch), checked here against the real compiler."""

from __future__ import annotations

import re

import pytest

import sassview
from sassview.analyses import Annotation, Severity
from sassview.declare import Declaration
from sassview.errors import CompileError
from sassview.frontends.arch import ARCH_FEATURES, parse_arch, supported_names
from sassview.steer.hints import propose

pytestmark = pytest.mark.compile

ASM = {
    "wgmma": "wgmma.fence.sync.aligned;",
    "tcgen05": "tcgen05.fence::before_thread_sync;",
    "setmaxnreg": "setmaxnreg.inc.sync.aligned.u32 232;",
}


def _kernel(asm: str) -> str:
    return f'extern "C" __global__ void k(int* p) {{ asm volatile("{asm}"); }}'


@pytest.mark.parametrize("feature", ARCH_FEATURES, ids=lambda f: f.name)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_100", "sm_120"])
def test_a_compile_error_names_a_target_that_exists_and_compiles_it(feature, arch) -> None:  # type: ignore[no-untyped-def]
    if arch in feature.targets:
        pytest.skip(f"{arch} has {feature.name}")
    with pytest.raises(CompileError) as failed:
        sassview.compile(_kernel(ASM[feature.name]), arch=arch)
    hint = failed.value.hint
    named = set(re.findall(r"\bsm_\d+[af]?\b", hint)) - {arch}
    assert named, hint
    for target in named:
        parse_arch(target)  # raises for a target that does not exist (sm_80a)
        assert target in feature.targets, hint
        sassview.compile(_kernel(ASM[feature.name]), arch=target)  # and it has the feature


def test_the_table_names_only_targets_the_compiler_has() -> None:
    known = set(supported_names())
    for feature in ARCH_FEATURES:
        # sm_101a is CUDA 12.8-12.9's name for sm_110a: the table keeps it for their cubins.
        assert set(feature.targets) - known <= {"sm_101a"}, feature


@pytest.mark.parametrize(
    ("arch", "proposed"),
    [("sm_90", ["sm_90a"]), ("sm_107", ["sm_107a"]), ("sm_110", ["sm_110a"]), ("sm_80", []),
     ("sm_120", [])],  # sm_80a does not exist; sm_120a has neither wgmma nor tcgen05
)  # fmt: skip
def test_try_proposes_only_an_a_target_that_has_tensor_cores(
    arch: str, proposed: list[str]
) -> None:
    warning = Annotation(kind="tensor-core", severity=Severity.WARNING, message="FMA fallback")
    decl = Declaration(kind="cuda", name="mm", target="", archs=(arch,))
    assert [t.arch for t in propose(decl, arch, {}, (warning,))] == proposed
