"""Re-record the Gluon kernel in this folder (needs Triton 3.5 or later; no GPU).

`python tests/data/frontends/gluon/record.py`: gluon_add [PER_THREAD=4] of
tests/data/frontends/gluon_kernels.py through sassview's Triton path for sm_90a: its cubin, and
its GLIR and TTGIR with the kernel file's folder renamed /src. tests/test_frontend_gluon.py reads
them without Triton installed.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = HERE.parent / "gluon_kernels.py"


def main() -> None:
    import sassview

    for program in sassview.load(KERNELS, arch="sm_90a"):
        if program.artifacts.label != "gluon_add [PER_THREAD=4]":
            continue
        (HERE / "gluon_add.sm_90a.cubin").write_bytes(program.artifacts.cubin)
        for stage in ("glir", "ttgir"):
            text = program.artifacts.stages[stage].replace(str(KERNELS.parent), "/src")
            (HERE / f"gluon_add.sm_90a.{stage}").write_text(text)
        print("gluon_add", len(program.artifacts.cubin), "bytes")


if __name__ == "__main__":
    main()
