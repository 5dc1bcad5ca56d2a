"""Record nvdisasm's register-liveness listing next to every recorded cubin.

    python tests/corpus/record_plr.py                 # every kernel.cubin under tests/corpus/
    python tests/corpus/record_plr.py tests/data/liveness   # (or any other folders)

For every kernel.cubin it writes plr.txt beside it: `nvdisasm -c -plr -lrm count kernel.cubin`,
the '#' columns (live GPR, PRED, UGPR, UPRED counts per instruction) that tests/test_liveness.py
holds sassview's liveness to. Cubins nvdisasm will not analyse (old ELF ABI) are skipped.
Needs no compiler, only the nvdisasm sassview finds. Kept apart from record.py (which
re-compiles), so the listings can be refreshed from the same cubins.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def record_plr(cubin: Path, nvdisasm: str) -> Path | None:
    """Write plr.txt; None (and no file) when nvdisasm cannot analyse this cubin.

    nvdisasm 13.x refuses dataflow on cubins of the old ELF ABI (7, what ptxas 12.9 writes):
    "Disassembling Std Elf to Old format ... Dataflow analysis disabled". Those get no plr.txt.
    """
    out = cubin.with_name("plr.txt")
    done = subprocess.run(
        [nvdisasm, "-c", "-plr", "-lrm", "count", str(cubin)], capture_output=True, text=True
    )
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1:] or ["(no message)"]
        print(f"skipped {cubin}: {reason[0]}", file=sys.stderr)
        out.unlink(missing_ok=True)
        return None
    out.write_text(done.stdout)
    return out


def main() -> None:
    from sassview.toolchain.locate import nvdisasm

    nd = nvdisasm()
    roots = [Path(a) for a in sys.argv[1:]] or [HERE]
    for root in roots:
        for cubin in sorted(root.rglob("kernel.cubin")):
            if (out := record_plr(cubin, nd)) is not None:
                print(f"recorded {out}")


if __name__ == "__main__":
    main()
