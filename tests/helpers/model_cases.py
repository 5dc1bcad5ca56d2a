"""Recorded compiles, one per frontend, whose cached model the model-cache tests compare with a
model built afresh: NVRTC and nvcc compiles of the corpus, a Triton cubin with its stages and
launch metadata, a CuTe DSL kernel's PTX assembled by nvJitLink."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sassview import build
from sassview.frontends.files import assemble_ptx
from sassview.ir import Artifacts, Program

TESTS = Path(__file__).parents[1]
CORPUS = TESTS / "corpus"
CUDA = ["vecadd/sm_90a", "tiled/sm_100a", "spill/sm_80", "mma/sm_120", "whole_program/sm_90a"]


def _cuda(case: str) -> Artifacts:
    d = CORPUS / case
    name = case.split("/")[0]
    return Artifacts(
        kind="cuda",
        arch=case.split("/")[1],
        source_path=str(CORPUS / "sources" / f"{name}.cu"),
        source_text=(CORPUS / "sources" / f"{name}.cu").read_text(),
        ptx=(d / "kernel.ptx").read_text(),
        cubin=(d / "kernel.cubin").read_bytes(),
        compile_log=(d / "compile.log").read_text(),
        compiler="nvcc" if name == "whole_program" else "nvrtc",
    )


def _triton() -> Artifacts:
    stages = {s: (TESTS / "data" / "stages" / f"matmul.{s}").read_text() for s in ("ttir", "ttgir")}
    return Artifacts(
        kind="triton",
        arch="sm_90a",
        cubin=(TESTS / "data" / "liveness" / "triton" / "sm_90a" / "kernel.cubin").read_bytes(),
        stages={**stages, "metadata": json.dumps({"shared": 32768})},
        label="matmul [num_warps=4]",
        variant={"num_warps": 4},
    )


def _cute() -> Artifacts:
    ptx = (TESTS / "data" / "ptx" / "cute_add_sm90a.ptx").read_text()
    launch = json.dumps({"shared": 0, "block": [128, 1, 1]})
    return dataclasses.replace(
        assemble_ptx(ptx, arch="sm_90a"), kind="cute", stages={"launch": launch}
    )


CASES: dict[str, Callable[[], Artifacts]] = {
    **{f"cuda:{c}": (lambda c=c: _cuda(c)) for c in CUDA},  # type: ignore[misc]
    "triton:matmul": _triton,
    "cute:add": _cute,
}


def _no_assembly(monkeypatch: pytest.MonkeyPatch) -> None:
    """From here on, a model that is not served from the cache fails the test."""

    def refuse(*args: object, **kwargs: object) -> Program:
        raise AssertionError("the model was assembled again: the cache did not serve it")

    monkeypatch.setattr(build, "assemble_program", refuse)
