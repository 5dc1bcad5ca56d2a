"""Which of nvdisasm's forms a cubin needs: the text listing always, the JSON only where
nvdisasm could mark a spill (SpillRefill, which only `-json -annotate` prints).

ptxas spills to local memory, which gives the function a stack frame or a `.nv.local`
section, or, where the PTX asks for it (`.pragma "enable_smem_spilling"`, CUDA 13), to shared
memory. A cubin none of whose functions has either, and whose PTX asks for no shared-memory
spilling, has no instruction nvdisasm could mark: its JSON would say nothing the text listing
does not (tests/test_sass_parsers.py checks both readers agree instruction by instruction).

How it can be wrong: a spill that needs neither a frame nor local memory nor the pragma would
lose its mark. None is known (a frame holds every local spill); where the cubin cannot be read
or no PTX is at hand the JSON is made, so an unknown costs one nvdisasm run, never a mark.
"""

from __future__ import annotations

from sassview.binary.elf import read_cubin
from sassview.errors import SassviewError

_SMEM_SPILLING = "enable_smem_spilling"


def spill_marks_possible(cubin: bytes, ptx: str = "") -> bool:
    """False only where no instruction of `cubin` can be a spill (see above); `ptx`: the PTX
    it was built from, else the copy -lineinfo embeds in it is read."""
    try:
        info = read_cubin(cubin)
    except SassviewError:
        return True
    text = ptx or info.debug_ptx
    if not text or _SMEM_SPILLING in text or _SMEM_SPILLING in info.tool_options:
        return True
    return any(
        k.resources.stack_frame or k.resources.local or k.resources.max_stack for k in info.kernels
    )
