"""Re-record the cuTile cubins in this folder (needs cuda-tile and nvidia-cuda-tileiras; no GPU).

`python tests/data/frontends/cutile/record.py`: the vector add (TILE=256) and the tiled matmul of
tests/data/frontends/cutile_kernels.py through sassview's cuTile frontend for sm_100a, each cubin
with its Tile IR beside it. Their line tables name the kernel file where it was recorded;
tests/test_frontend_cutile.py reads them without cuTile installed.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
KERNELS = HERE.parent / "cutile_kernels.py"
WANTED = {"vector_add [TILE=256]": "vector_add", "matmul": "matmul"}


def main() -> None:
    import sassview

    for program in sassview.load(KERNELS, arch="sm_100a"):
        name = WANTED.get(program.artifacts.label)
        if name is None:
            continue
        (HERE / f"{name}.sm_100a.cubin").write_bytes(program.artifacts.cubin)
        (HERE / f"{name}.sm_100a.tileir").write_text(program.artifacts.stages["tileir"])
        print(name, len(program.artifacts.cubin), "bytes")


if __name__ == "__main__":
    main()
