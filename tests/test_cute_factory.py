"""sv.cute(factory, arch=[...]): CuTe DSL objects that read the architecture when built
(tests/data/frontends/cute_arch_kernels.py), compiled for several architectures at once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from sassview.build import build_program
from sassview.errors import CompileError, InputError
from sassview.ir import Artifacts

DATA = Path(__file__).parent / "data" / "frontends"
KERNEL_FILE = DATA / "cute_arch_kernels.py"


@pytest.fixture(scope="module")
def arch_file() -> ModuleType:
    pytest.importorskip("cutlass.cute", reason="pip install nvidia-cutlass-dsl[cu13]")
    from sassview.frontends.discover import import_kernel_file

    return import_kernel_file(KERNEL_FILE)  # type: ignore[return-value]


def kernels(kernel_file: ModuleType) -> SimpleNamespace:
    """The kernel file's names, as its factory sees them."""
    (decl,) = kernel_file.declarations  # type: ignore[attr-defined]
    return SimpleNamespace(**decl.target.function.__globals__)


def global_accesses(art: Artifacts) -> Counter[str]:
    (kernel,) = build_program(art).kernels
    return Counter(i.opcode for i in kernel.instructions if i.opcode.startswith(("LDG", "STG")))


def widest_load(art: Artifacts) -> str:
    (kernel,) = build_program(art).kernels
    return next(i.text.split()[0] for i in kernel.instructions if i.opcode == "LDG")


def test_a_plain_function_given_no_arguments_is_a_factory() -> None:
    from sassview.frontends.cute_arch import is_factory

    def make(arch: str) -> tuple[object, ...]:
        return ()

    def no_parameter() -> None: ...

    assert is_factory(make, ())
    assert not is_factory(make, (1,))  # a host function given arguments: not a factory
    assert not is_factory(no_parameter, ())
    assert not is_factory(lambda: None, ())


def test_the_arch_is_set_inside_and_restored_after(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("cutlass.cute")
    from cutlass.base_dsl.dsl import BaseDSL

    from sassview.frontends.cute_arch import dsl_arch

    monkeypatch.delenv("CUTE_DSL_ARCH", raising=False)
    dsl = BaseDSL._get_dsl()
    before = dsl.envar._arch
    with dsl_arch("sm_90a"):
        assert str(dsl.get_arch_enum()) == "sm_90a"
        assert os.environ["CUTE_DSL_ARCH"] == "sm_90a"  # helpers that read it directly
    assert dsl.envar._arch == before
    assert "CUTE_DSL_ARCH" not in os.environ


@pytest.mark.compile
def test_each_arch_gets_an_object_built_for_it(arch_file: ModuleType) -> None:
    from sassview.frontends.jobs import compile_all

    arts = compile_all(arch_file, parallel=False)  # type: ignore[arg-type]
    by_arch = {(a.arch, a.variant["scale"]): a for a in arts}
    assert set(by_arch) == {(a, s) for a in ("sm_90a", "sm_100a") for s in (2.0, 3.0)}
    # Hopper's object copies 128 bits a thread, Blackwell's 256: built with each arch set.
    assert widest_load(by_arch["sm_90a", 2.0]) == "LDG.E.128"
    assert widest_load(by_arch["sm_100a", 2.0]) == "LDG.E.ENL2.256"
    # The variant reached the factory (and the cache key): the scales differ in the code.
    assert by_arch["sm_90a", 2.0].cubin != by_arch["sm_90a", 3.0].cubin
    assert by_arch["sm_90a", 2.0].label == "make_copy [scale=2.0]"


@pytest.mark.compile
def test_an_object_built_at_import_for_another_arch_compiles_other_code(
    arch_file: ModuleType,
) -> None:
    """What the factory is for: the sm_100a object (no GPU: the DSL's default) compiled for
    sm_90a splits its 256-bit copies in two."""
    from sassview.frontends.cute import compile_cute
    from sassview.frontends.cute_arch import dsl_arch

    module = kernels(arch_file)
    with dsl_arch("sm_100a"):
        blackwell = module.ArchCopy()
    art = compile_cute(blackwell, *module.fake(), arch="sm_90a")
    assert global_accesses(art) == Counter({"LDG": 2, "STG": 2})
    assert widest_load(art) == "LDG.E.128"


@pytest.mark.compile
def test_an_arch_set_in_process_compiles_what_a_fresh_process_does(
    arch_file: ModuleType, tmp_path: Path
) -> None:
    """No child process per arch is needed: after building for sm_100a, then for sm_90a in this
    process, the sm_90a PTX and cubin equal those of a process started with CUTE_DSL_ARCH."""
    from sassview.frontends.cute import compile_cute
    from sassview.frontends.cute_arch import CuteFactory

    module = kernels(arch_file)
    compile_cute(CuteFactory(module.make_copy), arch="sm_100a", scale=5.0)
    here = compile_cute(CuteFactory(module.make_copy), arch="sm_90a", scale=5.0)
    script = (  # imported as sassview imports it (the module's name is in the kernel's)
        "import sys\n"
        "from sassview.frontends.cute import compile_cute\n"
        "from sassview.frontends.discover import import_kernel_file\n"
        "(d,) = import_kernel_file(sys.argv[1]).declarations\n"
        "k = d.target.function.__globals__\n"
        "art = compile_cute(k['ArchCopy'](5.0), *k['fake'](), arch='sm_90a')\n"
        "open(sys.argv[2], 'wb').write(art.cubin); open(sys.argv[3], 'w').write(art.ptx)\n"
    )
    env = {**os.environ, "CUTE_DSL_ARCH": "sm_90a", "SASSVIEW_NO_CACHE": "1"}
    cubin, ptx = tmp_path / "k.cubin", tmp_path / "k.ptx"
    done = subprocess.run(
        [sys.executable, "-c", script, str(KERNEL_FILE), str(cubin), str(ptx)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ptx.read_text() == here.ptx
    assert cubin.read_bytes() == here.cubin


@pytest.mark.compile
def test_a_kernel_object_s_attributes_are_part_of_the_key(arch_file: ModuleType) -> None:
    from sassview.frontends.cute import compile_cute
    from sassview.frontends.cute_arch import dsl_arch

    module = kernels(arch_file)
    with dsl_arch("sm_90a"):
        two, four = module.ArchCopy(2.0), module.ArchCopy(4.0)
    first = compile_cute(two, *module.fake(), arch="sm_90a")
    other = compile_cute(four, *module.fake(), arch="sm_90a")
    assert first.cubin != other.cubin  # one cache entry for both served the first's code


def test_a_factory_that_returns_no_host_is_an_input_error(arch_file: ModuleType) -> None:
    from sassview.frontends.cute import compile_cute
    from sassview.frontends.cute_arch import CuteFactory

    def make(arch: str) -> object:
        return None

    with pytest.raises(InputError, match=r"make\('sm_90a'\) returned NoneType") as info:
        compile_cute(CuteFactory(make), arch="sm_90a")
    assert "return host, fake_a, fake_b" in info.value.hint


def test_a_factory_that_refuses_the_arch_names_its_line(arch_file: ModuleType) -> None:
    from sassview.frontends.cute import compile_cute
    from sassview.frontends.cute_arch import CuteFactory

    module = kernels(arch_file)
    with pytest.raises(CompileError) as info:
        compile_cute(CuteFactory(module.make_copy), arch="sm_80")
    lines = KERNEL_FILE.read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.endswith("# ARCH"))
    assert f"cute_arch_kernels.py:{line}: AssertionError" in info.value.message
    assert "not sm_80" in info.value.message


def test_a_host_function_a_factory_returns_is_not_undeclared(tmp_path: Path) -> None:
    pytest.importorskip("cutlass.cute")
    from sassview.frontends.discover import import_kernel_file

    path = tmp_path / "kernel.py"
    path.write_text(
        "import cutlass.cute as cute\nimport sassview as sv\n\n"
        "@cute.jit\ndef host(a: cute.Tensor):\n    pass\n\n"
        "@cute.jit\ndef other(a: cute.Tensor):\n    pass\n\n"
        "def make(arch):\n    return host, None\n\n"
        "sv.cute(make, arch=['sm_90a'])\n"
    )
    kf = import_kernel_file(path)
    assert [u.name for u in kf.undeclared] == ["other"]


def test_a_kernel_object_holding_an_anonymous_object_is_not_cached() -> None:
    from sassview.frontends.cute_key import state_of as _state

    class Kernel:
        def __init__(self, **attributes: object) -> None:
            self.__dict__.update(attributes)

        def __call__(self) -> None: ...

    def host() -> None: ...

    assert _state(host) == {}
    described = _state(Kernel(tile=(128, 64), name="k"))
    assert described["attributes"] == {"name": "'k'", "tile": ["128", "64"]}
    assert described["class"].endswith("Kernel")
    assert _state(Kernel(helper=object())) is None  # known only by its address: no stable key
    named = _state(Kernel(mod=test_a_plain_function_given_no_arguments_is_a_factory))
    assert named["attributes"]["mod"].endswith(
        ".test_a_plain_function_given_no_arguments_is_a_factory"
    )
