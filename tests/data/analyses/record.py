"""Recorded inputs of the analysis tests: compile each case once, keep what the tools said.

    python tests/data/analyses/record.py            # every case
    python tests/data/analyses/record.py widths     # one case

For every (case, arch) it writes tests/data/analyses/<case>/<arch>/:
  kernel.cubin, kernel.ptx, compile.log   NVRTC's output (compile.log holds the ptxas -v report)
  sass.json, sass.txt                     sassview.disasm.disassemble(cubin): -json and -gi -gp
  meta.json                               arch, user options, source path, tool versions

The tests read these three ways: `live` compiles again, `recorded` rebuilds the Program from the
cubin (sassview.from_artifacts: nvdisasm runs, cached), `offline` builds the model from the
recorded listings with the parsers alone (no compiler, no nvdisasm, no ELF reader).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import MappingProxyType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]  # the repository
CASES: dict[str, dict[str, object]] = {
    "widths": {"source": "tests/data/analyses/sources/widths.cu", "archs": ["sm_80", "sm_90a"]},
    "fma": {"source": "tests/data/analyses/sources/fma.cu", "archs": ["sm_80", "sm_90"]},
    "mma": {"source": "tests/corpus/sources/mma.cu", "archs": ["sm_80"]},
    "mma_kinds": {
        "source": "tests/data/analyses/sources/mma_kinds.cu",
        "archs": ["sm_80", "sm_90a", "sm_120"],
    },
    "wgmma": {"source": "tests/corpus/sources/wgmma.cu", "archs": ["sm_90a"]},
    "wgmma_shapes": {"source": "tests/data/analyses/sources/wgmma_shapes.cu", "archs": ["sm_90a"]},
    "wgmma_pipeline": {
        "source": "tests/data/analyses/sources/wgmma_pipeline.cu",
        "archs": ["sm_90a"],
    },
    "tcgen05": {"source": "tests/data/analyses/sources/tcgen05.cu", "archs": ["sm_100a"]},
    "tcgen05_shapes": {
        "source": "tests/data/analyses/sources/tcgen05_shapes.cu",
        "archs": ["sm_100a"],
    },
    "setmaxnreg": {"source": "tests/data/analyses/sources/setmaxnreg.cu", "archs": ["sm_90a"]},
    "async": {"source": "tests/data/analyses/sources/async.cu", "archs": ["sm_80", "sm_90a"]},
    "coalescing": {
        "source": "tests/data/analyses/sources/coalescing.cu",
        "archs": ["sm_80", "sm_90a"],
    },
    "lane_forms": {
        "source": "tests/data/analyses/sources/lane_forms.cu",
        "archs": ["sm_80", "sm_90a"],
    },
    "real_memory": {
        "source": "tests/data/analyses/sources/real_memory.cu",
        "archs": ["sm_80", "sm_90a"],
    },
    "real_app": {
        "source": "tests/data/analyses/sources/real_app.cu",
        "archs": ["sm_90a"],
    },
    "warp_fallbacks": {
        "source": "tests/data/analyses/sources/warp_fallbacks.cu",
        "archs": ["sm_80", "sm_90a"],
    },
    "real_warps": {
        "source": "tests/data/analyses/sources/real_warps.cu",
        "archs": ["sm_80", "sm_90a"],
    },
    "subroutines": {
        "source": "tests/data/analyses/sources/subroutines.cu",
        "archs": ["sm_90a"],
    },
    # Loop trip counts from the constants the compiler saw (tests/test_real_loops.py)
    "loop_constants": {
        "source": "tests/data/analyses/sources/loop_constants.cu",
        "archs": ["sm_80", "sm_90a"],
    },
    "loop_override": {
        "source": "tests/data/analyses/sources/loop_override.cu",
        "archs": ["sm_80", "sm_90a"],
        "options": ["-DTILE=16", "-DSTEPS=3"],
    },
    "loop_pipelines": {
        "source": "tests/data/analyses/sources/loop_pipelines.cu",
        "archs": ["sm_80", "sm_90a"],
    },
    "spill": {
        "source": "tests/corpus/sources/spill.cu",
        "archs": ["sm_80", "sm_90a"],
        "options": ["-maxrregcount=32"],
    },
}


def case_options(case: str) -> list[str]:
    return list(CASES[case].get("options", []))  # type: ignore[call-overload]


def source_path(case: str) -> Path:
    return ROOT / str(CASES[case]["source"])


def record(case: str) -> None:
    import sassview
    from sassview.disasm import disassemble
    from sassview.toolchain.locate import toolchain_versions

    spec = CASES[case]
    for arch in spec["archs"]:  # type: ignore[attr-defined]
        prog = sassview.compile(path=source_path(case), arch=arch, options=case_options(case))
        art = prog.artifacts
        out = HERE / case / arch
        out.mkdir(parents=True, exist_ok=True)
        (out / "kernel.cubin").write_bytes(art.cubin)
        (out / "kernel.ptx").write_text(art.ptx or "")
        (out / "compile.log").write_text(art.compile_log)
        dis = disassemble(art.cubin, json=True)
        (out / "sass.json").write_text(dis.json)
        (out / "sass.txt").write_text(dis.text)
        meta = {
            "source": spec["source"],
            "arch": arch,
            "options": case_options(case),
            "tools": toolchain_versions(),
        }
        (out / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        print(f"recorded {case}/{arch}")


def recorded_dirs() -> list[tuple[str, str]]:
    return sorted((p.parent.parent.name, p.parent.name) for p in HERE.glob("*/*/kernel.cubin"))


def _read(case: str, arch: str) -> tuple[Path, dict[str, object]]:
    d = HERE / case / arch
    return d, json.loads((d / "meta.json").read_text())


def recorded_program(case: str, arch: str):  # -> sassview.ir.Program
    """The Program rebuilt from the recorded cubin (nvdisasm runs; NVRTC does not)."""
    import sassview
    from sassview.ir import Artifacts

    d, meta = _read(case, arch)
    src = ROOT / str(meta["source"])
    return sassview.from_artifacts(
        Artifacts(
            kind="cuda",
            arch=arch,
            source_path=str(src),
            source_text=src.read_text(),
            ptx=(d / "kernel.ptx").read_text(),
            cubin=(d / "kernel.cubin").read_bytes(),
            compile_log=(d / "compile.log").read_text(),
            options=tuple(meta["options"]),  # type: ignore[arg-type]
        )
    )


def offline_program(case: str, arch: str, listing: str = "json"):  # -> sassview.ir.Program
    """The model from the recorded listings through the parsers alone: no tool runs at all.

    `listing` "json" reads sass.json with the line info of sass.txt (what build_program does);
    "text" reads sass.txt alone with parse_sass_text.

    Resources come from the ptxas report (registers, stack frame, spill bytes) since the ELF
    reader is not used; everything the analyses read besides is what build_program makes.
    """
    from sassview.ir import Artifacts, Correspondence, Kernel, Program, Resources
    from sassview.parse.ptx import parse_ptx
    from sassview.parse.ptxas_log import parse_ptxas_log
    from sassview.parse.sass_json import parse_sass_json
    from sassview.parse.sass_text import parse_sass_text, read_line_info

    d, meta = _read(case, arch)
    src = ROOT / str(meta["source"])
    text = (d / "sass.txt").read_text()
    if listing == "text":
        sass = parse_sass_text(text)
    else:
        sass = parse_sass_json((d / "sass.json").read_text(), line_info=read_line_info(text))
    ptx_text = (d / "kernel.ptx").read_text()
    ptx = parse_ptx(ptx_text)
    log = (d / "compile.log").read_text()
    reports = parse_ptxas_log(log)
    kernels = []
    for func in sass.functions:
        rep = reports.get(func.name)
        if rep is None:  # a device function nvdisasm printed apart: not a kernel
            continue
        ins = func.instructions
        ptx_func = ptx.function(func.name)
        ptx_source = (
            {p.line: p.source for p in ptx_func.instructions if p.source} if ptx_func else {}
        )
        kernels.append(
            Kernel(
                name=func.name,
                display_name=func.name,
                arch=arch,
                resources=Resources(
                    registers=rep.registers or 0,
                    stack_frame=rep.stack_frame or 0,
                    spill_store_bytes=rep.spill_stores,
                    spill_load_bytes=rep.spill_loads,
                ),
                instructions=ins,
                correspondence=Correspondence(
                    MappingProxyType({i.address: i.source for i in ins if i.source is not None}),
                    MappingProxyType(
                        {i.address: i.ptx_line for i in ins if i.ptx_line is not None}
                    ),
                    MappingProxyType(ptx_source),
                ),
                ptx=ptx_func,
            )
        )
    artifacts = Artifacts(
        kind="cuda",
        arch=arch,
        source_path=str(src),
        source_text=src.read_text(),
        ptx=ptx_text,
        compile_log=log,
        options=tuple(meta["options"]),  # type: ignore[arg-type]
    )
    return Program(artifacts=artifacts, kernels=tuple(kernels), ptx=ptx)


def main() -> None:
    os.environ["SASSVIEW_NO_CACHE"] = "1"
    sys.path.insert(0, str(ROOT))
    for case in sys.argv[1:] or list(CASES):
        record(case)


if __name__ == "__main__":
    main()
