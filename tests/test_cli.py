"""The real `sassview` command: output, exit codes, and one clear message for each bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CORPUS, assert_clean_error
from conftest import run_sassview as sassview

pytestmark = pytest.mark.compile
EXAMPLE = Path(__file__).parents[1] / "examples" / "vecadd.cu"


def cache_entries(cache: Path) -> int:
    """Entries of compiles and listings (not the tools' remembered versions)."""
    found = cache.rglob("manifest.json") if cache.exists() else ()
    return sum(1 for m in found if "tool-versions" not in m.parts)


def test_check_reports_resources_and_mix() -> None:
    done = sassview("check", EXAMPLE, "--arch", "sm_90a")
    assert done.returncode == 0, done.stderr
    assert "add_f4" in done.stdout and "registers" in done.stdout and "mix:" in done.stdout


def test_check_json_is_one_document_with_schema_version() -> None:
    done = sassview("check", EXAMPLE, "--arch", "sm_80,sm_90a", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema_version"] == 6
    assert [p["arch"] for p in doc["programs"]] == ["sm_80", "sm_90a"]
    f4 = next(k for k in doc["programs"][1]["kernels"] if k["name"] == "add_f4")
    assert f4["resources"]["registers"] > 0
    assert f4["opcodes"]["LDG"] == 2 and f4["instruction_count"] == sum(f4["mix"].values())


def test_check_says_when_ptxas_serialized_the_wgmma() -> None:
    source = Path(__file__).parent / "data" / "analyses" / "sources" / "wgmma_pipeline.cu"
    done = sassview("check", source, "--arch", "sm_90a", "--json")
    assert done.returncode == 0, done.stderr
    (program,) = json.loads(done.stdout)["programs"]
    serialized = {k["name"]: k["analysis"]["wgmma_serialized"] for k in program["kernels"]}
    assert serialized == {
        "_Z15waits_each_stepPKyPfi": False,
        "_Z16waits_after_loopPKyPfi": True,
        "_Z16call_in_pipelinePKyPfi": True,
        "_Z15add_in_pipelinePKyPfi": True,
    }
    text = sassview("check", source, "--arch", "sm_90a", "--kernel", "waits_after_loop").stdout
    assert "wgmma: 29x HGMMA.64x8x16.F32.BF16 (m64n8k16); serialized by ptxas" in text
    assert "warning  wgmma-serialized: ptxas serializes the wgmma pipeline (PTX line 426)" in text


def test_second_check_of_unchanged_kernel_runs_no_compiler(tmp_path: Path) -> None:
    from sassview.toolchain.locate import nvdisasm

    # A stand-in nvdisasm that logs every call, so the test sees whether it ran.
    calls = tmp_path / "calls.log"
    spy = tmp_path / "nvdisasm"
    spy.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexec {nvdisasm()} "$@"\n')
    spy.chmod(0o755)
    env = {"SASSVIEW_CACHE_DIR": str(tmp_path / "c"), "SASSVIEW_NVDISASM": str(spy)}
    first = sassview("-v", "check", EXAMPLE, "--json", env=env)
    assert first.returncode == 0, first.stderr
    assert "nvrtc: compiled" in first.stderr and "nvdisasm: disassembled" in first.stderr
    calls.write_text("")
    second = sassview("-v", "check", EXAMPLE, "--json", env=env)
    assert second.returncode == 0, second.stderr
    assert "nvrtc: cache hit" in second.stderr and "model: cache hit" in second.stderr
    assert "compiled" not in second.stderr and "disassembled" not in second.stderr
    assert [c for c in calls.read_text().splitlines() if c != "--version"] == []
    assert json.loads(first.stdout)["programs"] == json.loads(second.stdout)["programs"]


def test_kernel_option_selects_by_demangled_name() -> None:
    done = sassview(
        "check", CORPUS / "bounds" / "sm_90a" / "kernel.cubin", "--kernel", "bounded", "--json"
    )
    assert done.returncode == 0, done.stderr
    assert [k["name"] for k in json.loads(done.stdout)["programs"][0]["kernels"]] == [
        "_Z7boundedPf"
    ]


def test_ptx_file_is_assembled_for_its_target() -> None:
    done = sassview("check", CORPUS / "vecadd" / "sm_80" / "kernel.ptx", "--json")
    assert done.returncode == 0, done.stderr
    prog = json.loads(done.stdout)["programs"][0]
    assert prog["arch"] == "sm_80" and prog["kind"] == "ptx"
    assert prog["kernels"][0]["resources"]["spill_store_bytes"] == 0  # the ptxas report came back


def test_doctor_lists_every_tool() -> None:
    done = sassview("doctor")
    assert done.returncode == 0, done.stdout
    for tool in ("nvrtc", "nvJitLink", "nvdisasm", "cuobjdump"):
        assert tool in done.stdout


def test_doctor_names_the_package_for_a_missing_tool(tmp_path: Path) -> None:
    done = sassview("doctor", env={"SASSVIEW_NVDISASM": str(tmp_path / "nope")})
    assert done.returncode == 2
    assert "MISSING  nvdisasm" in done.stdout and "pip install nvidia-cuda-nvdisasm" in done.stdout


def test_doctor_and_check_flag_tools_from_different_releases() -> None:
    triton = pytest.importorskip("triton")
    old = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "nvdisasm"  # CUDA 13.1
    env = {"SASSVIEW_NVDISASM": str(old)}
    done = sassview("doctor", env=env)
    assert done.returncode == 2 and "MISMATCH" in done.stdout and "nvdisasm 13.1" in done.stdout
    checked = sassview("check", CORPUS / "vecadd" / "sm_80" / "kernel.cubin", env=env)
    assert (
        checked.returncode == 0 and "warning: tools from different CUDA releases" in checked.stderr
    )


def test_version() -> None:
    done = sassview("--version")
    assert done.returncode == 0 and "sassview" in done.stdout


# ---- bad input: one message, exit 2, no traceback, nothing cached ----


def test_missing_file(tmp_path: Path) -> None:
    assert_clean_error(sassview("check", tmp_path / "nope.cu"), "no such file")


def test_directory_instead_of_file(tmp_path: Path) -> None:
    assert_clean_error(sassview("check", tmp_path), "is a directory")


def test_unknown_extension(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("hello")
    assert_clean_error(sassview("check", f), "does not know this kind of file")


@pytest.mark.parametrize(
    ("arch", "needle"),
    [("sm_91", "not supported"), ("banana", "not an architecture"), ("sm_80a", "no 'a' variant")],
)
def test_bad_arch_lists_supported_ones(arch: str, needle: str) -> None:
    assert_clean_error(sassview("check", EXAMPLE, "--arch", arch), needle, "sm_90a")


def test_compile_error_shows_nvrtc_log_with_user_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "broken.cu"
    src.write_text("__global__ void k(float* p) {\n  p[0] = undefined_thing;\n}\n")
    cache = tmp_path / "cache"
    done = sassview("check", src, env={"SASSVIEW_CACHE_DIR": str(cache)})
    assert_clean_error(done, f"{src}:2", "undefined_thing")
    assert cache_entries(cache) == 0


def test_wgmma_on_plain_sm90_suggests_the_a_target() -> None:
    done = sassview("check", CORPUS / "sources" / "wgmma.cu", "--arch", "sm_90")
    assert_clean_error(done, "sm_90a")


def test_not_elf_cubin(tmp_path: Path) -> None:
    f = tmp_path / "k.cubin"
    f.write_bytes(b"this is not an ELF file at all")
    assert_clean_error(sassview("check", f), "not an ELF")


def test_truncated_cubin(tmp_path: Path) -> None:
    data = (CORPUS / "vecadd" / "sm_90a" / "kernel.cubin").read_bytes()
    f = tmp_path / "k.cubin"
    f.write_bytes(data[: len(data) // 3])
    assert_clean_error(sassview("check", f))


def test_corrupted_cubin(tmp_path: Path) -> None:
    data = bytearray((CORPUS / "vecadd" / "sm_90a" / "kernel.cubin").read_bytes())
    data[0x20:0x40] = b"\xff" * 0x20  # the section header table offset and friends
    f = tmp_path / "k.cubin"
    f.write_bytes(bytes(data))
    assert_clean_error(sassview("check", f))


def test_empty_ptx(tmp_path: Path) -> None:
    f = tmp_path / "k.ptx"
    f.write_text("   \n")
    assert_clean_error(sassview("check", f), "empty")


def test_ptx_without_target(tmp_path: Path) -> None:
    f = tmp_path / "k.ptx"
    f.write_text(".version 8.0\n.visible .entry k() { ret; }\n")
    assert_clean_error(sassview("check", f), ".target")


def test_unknown_kernel_name_lists_the_kernels() -> None:
    done = sassview("check", EXAMPLE, "--kernel", "nope")
    assert_clean_error(done, "no kernel named 'nope'", "add_f4", "add_scalar")


def test_missing_disassembler(tmp_path: Path) -> None:
    done = sassview(
        "check",
        EXAMPLE,
        env={"SASSVIEW_NVDISASM": str(tmp_path / "gone"), "SASSVIEW_NO_CACHE": "1"},
    )
    assert_clean_error(done, "nvdisasm", "nvidia-cuda-nvdisasm")
