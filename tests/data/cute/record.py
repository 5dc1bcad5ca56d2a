"""Re-record the CuTe DSL kernels' compiles in this folder (needs nvidia-cutlass-dsl; no GPU).

    python tests/data/cute/record.py

For every job of the kernel files below it writes tests/data/cute/<file>/<arch>-<n>/:
  kernel.cubin, kernel.ptx, compile.log   what cute.compile made (compile.log: ptxas -v)
  names.json, launch.json                 sassview's short kernel names, the launch's shared memory
  meta.json                               the kernel file, arch, label, variant, tool versions
The tests rebuild the model from them without the DSL (tests/test_cute_recorded.py).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
FILES = [
    "tests/data/frontends/cute_elementwise.py",
    "tests/data/frontends/cute_arch_kernels.py",
    "tests/data/frontends/cute_warp_specialized.py",
]


def main() -> None:
    os.environ["SASSVIEW_NO_CACHE"] = "1"
    sys.path.insert(0, str(ROOT))
    from sassview.frontends.discover import import_kernel_file
    from sassview.frontends.jobs import compile_job, plan

    for name in FILES:
        kf = import_kernel_file(ROOT / name)
        out = HERE / Path(name).stem
        shutil.rmtree(out, ignore_errors=True)
        for n, job in enumerate(plan(kf), 1):
            art = compile_job(kf, job)
            d = out / f"{job.arch}-{n}"
            d.mkdir(parents=True)
            (d / "kernel.cubin").write_bytes(art.cubin)
            (d / "kernel.ptx").write_text(art.ptx or "")
            (d / "compile.log").write_text(art.compile_log)
            (d / "names.json").write_text(art.stages.get("names", ""))
            (d / "launch.json").write_text(art.stages.get("launch", ""))
            meta = {
                "source": name,
                "arch": art.arch,
                "label": art.label,
                "variant": {k: str(v) for k, v in art.variant.items()},
                "tools": dict(art.toolchain),
            }
            (d / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
            print(f"recorded {d.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
