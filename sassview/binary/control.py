"""The control codes ptxas writes into every SASS instruction from Volta on, which nvdisasm
does not print: the issue schedule the compiler committed to.

From sm_70 every instruction is one 128-bit little-endian word, and its top bits are scheduling
information for the warp scheduler rather than part of the operation. Bits of the 128-bit word:

    bit      width  field                 meaning
    105–108    4    stall                 cycles the scheduler waits before issuing the next
                                          instruction of this warp (0–15)
    109        1    yield                 0 prints as `Y` (see below), 1 as `-`
    110–112    3    write scoreboard      the scoreboard (0–5) this instruction sets until its
                                          result is written; 7 = none (variable-latency ops)
    113–115    3    read scoreboard       the scoreboard set until its source registers have
                                          been read (stores, wide loads); 7 = none
    116–121    6    wait mask             the scoreboards (bit n = SBn) that must be clear before
                                          this instruction issues
    122–125    4    reuse                 operand-reuse cache flags, bit 0 = the first source
                                          slot (A), bit 1 = B, bit 2 = C, bit 3 = a fourth slot
    126–127    2    (not used: always 0 in every cubin seen)

Where the layout comes from: Jia, Maggioni, Smith, Scarpazza, "Dissecting the NVIDIA Volta GPU
Architecture via Microbenchmarking" (arXiv:1804.06826) and the Turing follow-up (arXiv:1903.07486)
published the 23-bit control section; CuAssembler's `CuAsm/common.py` (`decodeCtrlCodes`) and
Triton's `triton/tools/disasm.py` (`parseCtrl`, MIT, from Da Yan's Turing tools) decode the same
bits. The yield bit is printed inverted by both (`Y` when the bit is 0); sassview keeps their
reading, because NVIDIA documents none of this. The sense is "the scheduler may switch to another
warp here"; `ControlCode.yield_hint` is True where they print `Y`.

Checked against the data, not taken on trust (tests/test_control_codes.py): on every instruction
of every recorded listing (sm_80, sm_90a, sm_100a, sm_120, ptxas 12.9 and 13.x) the reuse bits
set are exactly as many as the operands nvdisasm prints with `.reuse`; a write scoreboard is set
only by variable-latency instructions (loads, S2R, MUFU, conversions, double math, ...); and every
instruction that reads the destination of such an instruction in the same straight-line code
waits on its scoreboard, or comes after an instruction that did. Volta (sm_70/72) has the same
128-bit format and layout in the papers above; no sm_7x cubin is in the recorded corpus.

What this cannot say: the stall count is the compiler's plan, a lower bound on issue spacing; the
hardware adds what the scoreboards and the other warps cost. Before sm_70 (64-bit instructions
with a control word per three) nothing is decoded.
"""

from __future__ import annotations

import struct

from sassview.ir import ControlCode
from sassview.memo import Memo

__all__ = ["CONTROL_SHIFT", "FIRST_SM", "ControlCode", "decode_controls"]

CONTROL_SHIFT = 105 - 64  # the control section's first bit within the upper 64-bit half
FIRST_SM = 70  # the first SM whose instructions carry the 128-bit control section
_NO_SCOREBOARD = 7


def _sm(arch: str) -> int:
    digits = "".join(c for c in arch.removeprefix("sm_") if c.isdigit())
    return int(digits) if digits else 0


def _decode(bits: int) -> ControlCode:
    write = (bits >> 5) & 7
    read = (bits >> 8) & 7
    return ControlCode(
        stall=bits & 0xF,
        yield_hint=not (bits >> 4) & 1,
        write=None if write == _NO_SCOREBOARD else write,
        read=None if read == _NO_SCOREBOARD else read,
        wait=(bits >> 11) & 0x3F,
        reuse=(bits >> 17) & 0xF,
    )


# One record per distinct 21-bit value: a kernel uses a few hundred, so a 65k-instruction kernel
# costs a dictionary lookup per instruction and shares its records.
_MEMO: Memo[int, ControlCode] = Memo(f"{__name__}._MEMO", 100_000)


def decode_controls(code: bytes, arch: str) -> tuple[ControlCode, ...]:
    """The control code of each 16-byte instruction of a kernel's .text, in address order
    (index i is the instruction at address 16·i); () before sm_70 or for a ragged section."""
    if _sm(arch) < FIRST_SM or len(code) % 16 or not code:
        return ()
    upper = struct.unpack(f"<{len(code) // 8}Q", code)[1::2]  # each word's upper 64 bits
    memo = _MEMO
    out = []
    for word in upper:
        bits = (word >> CONTROL_SHIFT) & 0x1FFFFF
        found = memo.get(bits)
        if found is None:
            found = memo[bits] = _decode(bits)
        out.append(found)
    return tuple(out)
