"""Lines inside inline asm go back to the asm statement's (sassview.parse.inline_asm).

The recorded PTX of examples/cute/hopper_gemm.py (tests/data/ptx/cute_gemm_sm90a.ptx, from
tests/data/ptx/record.py) has LLVM's per-line `.loc`s inside its asm blocks; NVRTC's and
Triton's one-line asm has none that move. No compiler is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sassview.ir import PtxModule, SourceLoc
from sassview.parse.inline_asm import AsmBlock, CallSites, asm_blocks
from sassview.parse.ptx import parse_ptx

DATA = Path(__file__).parent / "data" / "ptx"
GEMM = "/src/hopper_gemm.py"


def sites_of(name: str) -> tuple[PtxModule, CallSites]:
    text = (DATA / f"{name}.ptx").read_text()
    module = parse_ptx(text, name)
    return module, CallSites(asm_blocks(text, module.files))


def test_dsl_asm_lines_go_back_to_the_calling_statement() -> None:
    module, sites = sites_of("cute_gemm_sm90a")
    assert len(sites.blocks) == 20  # every `// begin inline asm` has a .loc in force
    # consumer_wait at line 149: an mbarrier wait loop whose lines LLVM numbered 151-155.
    assert sites.at(359) == AsmBlock(353, 367, GEMM, 149, 368)
    (func,) = module.functions
    wait = next(i for i in func.instructions if i.line == 359)
    assert wait.opcode == "mbarrier" and wait.source == SourceLoc(GEMM, 152, 8)
    assert sites.fix(wait.source, wait.line) == SourceLoc(GEMM, 149, 8)
    # cute.gemm at line 173: its wgmma is the fourth line of the asm string.
    mma = next(i for i in func.instructions if i.line == 221)
    assert mma.opcode == "wgmma" and mma.source == SourceLoc(GEMM, 176, 8)
    assert sites.fix(mma.source, mma.line) == SourceLoc(GEMM, 173, 8)
    moved = {i.line for i in func.instructions if sites.fix(i.source, i.line) is not i.source}
    assert moved and all(sites.at(line) for line in moved)  # only code the blocks' .locs reach


def test_triton_wgmma_wait_goes_back_to_its_dot() -> None:
    # Triton's wait asm starts with a comment line ("// wait for regs: ..."), so LLVM numbers
    # the wait itself one line past tl.dot (46), on `a_ptrs += ...` (47).
    module, sites = sites_of("triton_matmul_sm90")
    moved = [
        (i.line, i.mnemonic, i.source.line, fixed.line)
        for func in module.functions
        for i in func.instructions
        if i.source is not None and (fixed := sites.fix(i.source, i.line)) is not i.source
    ]
    assert moved == [(572, "wgmma.wait_group.sync.aligned", 47, 46)]


@pytest.mark.parametrize("name", ["wgmma_sm90a", "inline_asm_sm90", "triton_add_sm90"])
def test_nvrtc_and_triton_asm_lines_stay(name: str) -> None:
    module, sites = sites_of(name)
    assert sites  # they have inline asm ...
    for func in module.functions:  # ... at the statement's own line already
        assert all(sites.fix(i.source, i.line) is i.source for i in func.instructions)


BODY = """.version 8.0
.target sm_90
.file 1 "/k.cu"
.file 2 "/other.cu"
.visible .entry k()
{
	// begin inline asm
	.loc	1 30 1
	nop;
	// end inline asm
	.loc	1 10 5
	// begin inline asm
	.loc	1 12 5
	nop;
	.loc	1 40 5
	nop;
	.loc	2 11 5
	nop;
	// end inline asm
	// begin inline asm
	.loc	1 11 5
	nop;
	// end inline asm
	ret;
}
"""


def test_only_offsets_within_the_block_in_its_file_move() -> None:
    module = parse_ptx(BODY)
    sites = CallSites(asm_blocks(BODY, module.files))
    # The first block follows the header: no statement line to go back to.
    blocks = [(b.first, b.last, b.line, b.reach) for b in sites.blocks]
    assert blocks == [(12, 19, 10, 20), (20, 23, 10, 27)]
    (func,) = module.functions
    fixed = {i.line: sites.fix(i.source, i.line) for i in func.instructions}
    assert fixed[9] == SourceLoc("/k.cu", 30, 1)  # no block
    assert fixed[14] == SourceLoc("/k.cu", 10, 5)  # 12: an offset of 2
    assert fixed[16] == SourceLoc("/k.cu", 40, 5)  # 40: past the block's length
    assert fixed[18] == SourceLoc("/other.cu", 11, 5)  # another file
    # A .loc inside a block is not the statement line of the next block.
    assert fixed[22] == SourceLoc("/k.cu", 10, 5)
    # After a block, its last .loc holds until the next one: put back as well.
    assert fixed[24] == SourceLoc("/k.cu", 10, 5)


def test_no_blocks_without_inline_asm() -> None:
    assert not CallSites(asm_blocks(".version 8.0\n.target sm_90\n", {}))
