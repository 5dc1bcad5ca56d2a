"""Write docs/gallery/: the matmul progression of examples/matmul, one page per step.

    python docs/gen_gallery.py

`mkdocs build` runs it too (mkdocs.yml names this file under `hooks:`), so the site needs no
step before it. Files whose content is unchanged are not rewritten, so `mkdocs serve`, which
rebuilds on every change under docs/, does not rebuild for the gallery it just wrote.

Each page is what `sassview export --format md` writes for the step (sm_90a), under a short text
saying what changed in the SASS and why, with a link to the step's `--format html` page. The
overview table is read from the `--format json` export. The texts quote numbers from the
listings; `CLAIMS` holds those numbers and the script stops when an export disagrees, so a
compiler update cannot leave the gallery saying something the listings no longer show.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "matmul"
OUT = ROOT / "docs" / "gallery"
ARCH = "sm_90a"


@dataclass(frozen=True)
class Step:
    file: str  # the .cu file's stem, as the export names it
    kernel: str
    title: str
    text: str
    # What the text says, checked against the export: registers, and counts of SASS
    # instructions by full mnemonic (LDS is LDS only, not LDS.128), or by opcode (`LDS*`).
    registers: int
    counts: dict[str, int] = field(default_factory=dict)


STEPS = (
    Step(
        "01_naive",
        "matmul_naive",
        "Step 1 · one thread per output",
        "Every multiply-add needs two loads from global memory. ptxas unrolled the `k` loop "
        "(line 9) by 16 with a remainder loop, so the listing holds 29 `FFMA` and 58 32-bit "
        "`LDG.E.CONSTANT` (`__restrict__ const` sends them down the read-only path). The loads "
        "of a row of `A` sit at consecutive offsets from one base register — the "
        "*merge-candidate* notes — but ptxas cannot prove `A + row * K` 16-byte aligned, so "
        "they stay scalar; the loads of `B` walk a column, `N` floats apart.",
        registers=32,
        counts={"FFMA*": 29, "LDG*": 58, "LDG.E.CONSTANT": 58},
    ),
    Step(
        "02_smem_tiled",
        "matmul_smem",
        "Step 2 · tiles in shared memory",
        "Global loads fall from 58 to 2: per 32×32 tile each thread fetches one element of `A` "
        "and one of `B` (`LDG`), stores them with `STS`, and `BAR.SYNC` brackets the tile. The "
        "inner `k` loop (line 16) is fully unrolled into 32 `FFMA` fed from shared memory: "
        "`As[ty][k]` runs along a row, so four consecutive `k` merge into one `LDS.128` (8 of "
        "them), while `Bs[k][tx]` runs down a column and stays 32 scalar `LDS`. With one "
        "shared load for every `FFMA`, shared-memory bandwidth now bounds the loop.",
        registers=31,
        counts={"FFMA*": 32, "LDG*": 2, "STS*": 2, "LDS": 32, "LDS.128": 8, "BAR*": 2},
    ),
    Step(
        "03_register_blocking",
        "matmul_regblock",
        "Step 3 · 8×8 outputs per thread",
        "`LDG.E.128` appears: each thread fetches a `float4` of `A` and one of `B` per 8-wide "
        "k-step, and reads shared memory only as `LDS.128` (32 per tile). Each value read now "
        "feeds eight multiply-adds, so the k-tile loop is 512 `FFMA` out of its 567 "
        "instructions, against a third of the loop in step 2. The price is registers: 64 "
        "accumulators, two 8-float fragments and the addresses take the count from 31 to 127, "
        "still without a spill.",
        registers=127,
        counts={"FFMA*": 512, "LDG*": 2, "LDG.E.128.CONSTANT": 2, "LDS*": 32, "LDS.128": 32},
    ),
    Step(
        "04_warp_tiling",
        "matmul_warptile",
        "Step 4 · warp tiles",
        "The k tile doubles to 16, so one trip through the loop is 1024 `FFMA` and 64 `LDS.128`; "
        "each thread still owns 8×8 outputs, now as a 2×2 grid of 4×4 sub-tiles inside its "
        "warp's 64×32 region, so the lanes of a warp read neighbouring fragments. "
        "`__launch_bounds__(256, 1)` promises one block per SM, which lets ptxas use 161 "
        "registers and keep every accumulator in one: no spills (with `(256)` alone it "
        "caps the kernel at 128 and spills).",
        registers=161,
        counts={"FFMA*": 1024, "LDS*": 64, "LDS.128": 64, "STL*": 0},
    ),
    Step(
        "05_wgmma_tma",
        "matmul_wgmma_tma",
        "Step 5 · wgmma and TMA (sm_90a)",
        "The `FFMA`s are gone: each 64-wide k tile is four `HGMMA.64x64x16.F32.BF16`, which "
        "read `A` and `B` straight from shared memory through matrix descriptors, so the "
        "register count falls from 161 to 58, 32 of them the fp32 accumulators each thread "
        "keeps. The global loads are gone too: one thread issues `UTMALDG.2D` (TMA) and the "
        "warpgroup waits on the mbarrier with `SYNCS.PHASECHK.TRANS64.TRYWAIT`; "
        "`WARPGROUP.ARRIVE` and `WARPGROUP.DEPBAR` are `wgmma.fence` and `wgmma.wait_group`. "
        "ptxas unrolled the tile loop (line 71) by 4 with a remainder, hence 20 `HGMMA` and 10 "
        "`UTMALDG` in the listing.",
        registers=58,
        counts={"FFMA*": 0, "LDG*": 0, "HGMMA.64x64x16.F32.BF16": 20, "UTMALDG.2D": 10},
    ),
)


def export(tmp: Path) -> None:
    """`sassview export` itself, as a user would run it (the gallery is our own dogfood)."""
    done = subprocess.run(
        [sys.executable, "-m", "sassview", "export", str(EXAMPLES / "kernel.py"),
         "--arch", ARCH, "-o", str(tmp), "--format", "md,html,json", "--root", str(EXAMPLES)],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"sassview export failed:\n{done.stderr}")


def check(step: Step, doc: dict) -> list[str]:
    """Where the step's text disagrees with its export."""
    problems = []
    registers = doc["kernel"]["resources"]["registers"]
    if registers != step.registers:
        problems.append(f"registers: the text says {step.registers}, the export {registers}")
    mnemonics = Counter(".".join([i["opcode"], *i["modifiers"]]) for i in doc["instructions"])
    opcodes = Counter(i["opcode"] for i in doc["instructions"])
    for name, want in step.counts.items():
        got = opcodes[name[:-1]] if name.endswith("*") else mnemonics[name]
        if got != want:
            problems.append(f"{name}: the text says {want}, the export {got}")
    return problems


def _bits(value: int | None) -> str:
    return "-" if value is None else f"{value}-bit"


def overview_row(n: int, step: Step, doc: dict) -> str:
    k = doc["kernel"]
    a = k["analysis"]
    ffma = k["opcodes"].get("FFMA", 0)
    tensor = a["tensor_core_path"]
    spills = "yes" if a["spills"] else "no"
    cells = (f"[{n}. {step.title.split(' · ', 1)[1]}]({step.file}.md)", k["resources"]["registers"],
             k["instruction_count"], ffma, _bits(a["max_global_load_bits"]),
             _bits(a["max_shared_load_bits"]), tensor, spills)  # fmt: skip
    return "| " + " | ".join(map(str, cells)) + " |"


def page(step: Step, md: str, html_name: str) -> str:
    body = md.split("\n", 1)[1].lstrip("\n")  # the export's own title goes; ours replaces it
    return (
        f"# {step.title}\n\n{step.text}\n\n"
        f"[Source, PTX and SASS side by side](html/{html_name}) — the same listing as one HTML "
        "page (`sassview export --format html`): hover or click a line to light up its "
        "counterparts.\n\n"
        f"{body}"
    )


INDEX_HEAD = """# Gallery: the matmul progression

`examples/matmul/` holds five CUDA matrix multiplications, each one step on from the last. Each
page below is `sassview export` of one step for {arch}, under a few sentences on what changed in
the SASS and why: the findings are the numbered markers in the listing, the highlighted
instructions are the ones a note or warning rests on. Every `mkdocs build` regenerates these
pages (so does `python docs/gen_gallery.py`).

| step | registers | instructions | FFMA | widest global load | widest shared load | tensor cores \
| spills |
|---|--:|--:|--:|---|---|---|---|
"""


def _changed(out_dir: Path, files: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The files whose content differs from what `out_dir` holds."""
    return [(n, data) for n, data in files if not _holds(out_dir / n, data)]


def _holds(path: Path, data: bytes) -> bool:
    return path.is_file() and path.read_bytes() == data


def main(quiet: bool = False) -> None:
    sys.path.insert(0, str(ROOT))
    from sassview.export.writer import write_all

    pages: list[tuple[str, bytes]] = []
    html: list[tuple[str, bytes]] = []
    rows = []
    problems = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        export(tmp)
        for n, step in enumerate(STEPS, 1):
            stem = f"{step.file}-{ARCH}-{step.kernel}"
            doc = json.loads((tmp / f"{stem}.json").read_text(encoding="utf-8"))
            problems += [f"{step.file}: {p}" for p in check(step, doc)]
            md = (tmp / f"{stem}.md").read_text(encoding="utf-8")
            pages.append((f"{step.file}.md", page(step, md, f"{stem}.html").encode("utf-8")))
            html.append((f"{stem}.html", (tmp / f"{stem}.html").read_bytes()))
            rows.append(overview_row(n, step, doc))
    if problems:
        sys.exit("the gallery's texts no longer match the listings; update STEPS in "
                 "docs/gen_gallery.py:\n  " + "\n  ".join(problems))  # fmt: skip
    index = INDEX_HEAD.format(arch=ARCH) + "\n".join(rows) + "\n"
    pages.append(("index.md", index.encode("utf-8")))
    written = write_all(OUT, _changed(OUT, pages)) + write_all(
        OUT / "html", _changed(OUT / "html", html)
    )
    keep = {OUT / n for n, _ in pages} | {OUT / "html" / n for n, _ in html}
    for old in [*OUT.glob("*.md"), *(OUT / "html").glob("*.html")]:
        if old not in keep:
            old.unlink()
    for p in [] if quiet else written:
        print(p.relative_to(ROOT))


def on_pre_build(config: object) -> None:
    """The mkdocs hook: the gallery is made before mkdocs reads docs/ (its nav names the pages)."""
    from mkdocs.exceptions import PluginError

    try:
        main(quiet=True)
    except SystemExit as exc:  # main's own way to stop, as a script; mkdocs wants its error
        raise PluginError(f"docs/gen_gallery.py: {exc.code}") from None


if __name__ == "__main__":
    main()
