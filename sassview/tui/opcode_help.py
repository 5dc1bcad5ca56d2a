"""A short note on what a SASS opcode and its modifiers do, in our own words.

NVIDIA documents SASS only as a one-line table per opcode (cuda-binary-utilities, "Instruction
Set Reference"); their text is not ours to copy, so every note here is written for sassview and
links to their page for the authoritative list. Notes say what the instruction is for and what a
kernel author usually reads into it (a wide load, a spill, a tensor-core op). An opcode missing
from the table still gets its category (from sassview.opcodes) and the link.
"""

from __future__ import annotations

from dataclasses import dataclass

from sassview.ir import ControlCode
from sassview.opcodes import category

NVIDIA_SASS_DOCS = (
    "https://docs.nvidia.com/cuda/cuda-binary-utilities/index.html#instruction-set-reference"
)

OPCODES: dict[str, str] = {
    # memory: global, local, shared, constant
    "LDG": "Load from global memory into registers. The width modifier (.64, .128) says how "
    "many bytes each thread moves at once; wider is fewer instructions for the same data.",
    "STG": "Store registers to global memory; width modifiers as for LDG.",
    "LD": "Load through a generic address: the hardware decides at run time whether it points "
    "to global, shared or local memory (slower to decide than LDG/LDS).",
    "ST": "Store through a generic address (see LD).",
    "LDS": "Load from shared memory (on-chip, per thread block).",
    "STS": "Store to shared memory.",
    "LDL": "Load from local memory: per-thread memory that lives in DRAM behind the caches. "
    "Either a register spill reload or an array the compiler could not keep in registers.",
    "STL": "Store to local memory: a register spill or a dynamically indexed local array.",
    "LDC": "Load from a constant bank (kernel parameters, __constant__ data) into a register.",
    "ULDC": "Load from a constant bank into a uniform register (one value shared by the warp).",
    "LDCU": "Load from a constant bank into a uniform register (Blackwell form of ULDC).",
    "LDSM": "Load 8x8 matrices from shared memory, spread across the warp the way the "
    "tensor-core ops want them (PTX ldmatrix). .M88.4 loads four matrices.",
    "STSM": "Store 8x8 matrices from registers to shared memory (PTX stmatrix).",
    "LDGSTS": "Asynchronous copy from global to shared memory that skips the registers "
    "(PTX cp.async, sm_80+). Completion is awaited with LDGDEPBAR/DEPBAR.",
    "LDGDEPBAR": "Close a group of LDGSTS copies (PTX cp.async.commit_group).",
    "DEPBAR": "Wait until at most N groups of outstanding asynchronous copies (or other "
    "scoreboarded work) are still in flight (PTX cp.async.wait_group).",
    "ATOM": "Atomic read-modify-write through a generic address; returns the old value.",
    "ATOMG": "Atomic read-modify-write on global memory; returns the old value.",
    "ATOMS": "Atomic read-modify-write on shared memory.",
    "RED": "Atomic reduction (no value returned) through a generic address.",
    "REDG": "Atomic reduction on global memory, no value returned: cheaper than ATOMG.",
    "CCTL": "Cache control: invalidate or write back cache lines.",
    "MEMBAR": "Memory barrier: make this thread's earlier writes visible at the given scope "
    "(.CTA, .GPU, .SYS) before later ones (PTX membar/fence).",
    "FENCE": "Memory or proxy fence: orders memory operations between proxies or scopes "
    "(e.g. generic writes before a TMA or wgmma reads them).",
    "ERRBAR": "Error barrier: waits until earlier memory errors would have been reported.",
    # Hopper/Blackwell asynchronous data movement
    "UTMALDG": "Tensor Memory Accelerator load: one thread starts a bulk copy of a whole tile "
    "from global to shared memory, described by a tensor map (PTX cp.async.bulk.tensor).",
    "UTMASTG": "Tensor Memory Accelerator store: a tile from shared memory to global memory.",
    "UTMAREDG": "Tensor Memory Accelerator reduction of a shared-memory tile into global memory.",
    "UTMAPF": "Prefetch a tile described by a tensor map into L2.",
    "UBLKCP": "Bulk copy of a contiguous block between global and shared memory "
    "(PTX cp.async.bulk, no tensor map).",
    "UBLKRED": "Bulk reduction of a shared-memory block into global memory.",
    "UBLKPF": "Bulk prefetch of a contiguous block into L2.",
    "SYNCS": "Shared-memory barrier object operations (PTX mbarrier: init, arrive, expect_tx, "
    "try_wait): how TMA copies and warp-specialised pipelines signal completion.",
    "ARRIVES": "Arrive on a shared-memory barrier object when earlier async copies finish.",
    # tensor cores
    "HMMA": "Half-precision (fp16/bf16/tf32) matrix multiply-accumulate on the tensor cores, "
    "one warp at a time (PTX mma.sync / wmma). The shape, e.g. .16816, is m16n8k16.",
    "IMMA": "Integer (int8/int4) matrix multiply-accumulate on the tensor cores.",
    "DMMA": "Double-precision matrix multiply-accumulate on the tensor cores.",
    "BMMA": "Single-bit matrix multiply-accumulate on the tensor cores.",
    "QMMA": "Low-precision (fp8/fp6/fp4) matrix multiply-accumulate, warp-level.",
    "OMMA": "Narrow-format (fp4) matrix multiply-accumulate, warp-level.",
    "HGMMA": "Warpgroup matrix multiply-accumulate (Hopper wgmma): four warps together, "
    "operands from shared memory descriptors and registers, asynchronous.",
    "IGMMA": "Integer warpgroup matrix multiply-accumulate (Hopper wgmma on int8).",
    "BGMMA": "Single-bit warpgroup matrix multiply-accumulate (Hopper).",
    "QGMMA": "fp8 warpgroup matrix multiply-accumulate (Hopper).",
    "WARPGROUP": "Warpgroup bookkeeping for wgmma: .ARRIVE orders register writes before the "
    "ops read them; .DEPBAR waits for outstanding wgmma groups.",
    "UTCHMMA": "Blackwell tensor-core MMA (tcgen05.mma) on fp16/bf16/tf32, accumulating in "
    "tensor memory; issued by one thread for the CTA (or CTA pair).",
    "UTCQMMA": "Blackwell tensor-core MMA on fp8/fp6/fp4 (tcgen05.mma .kind::f8f6f4).",
    "UTCIMMA": "Blackwell tensor-core MMA on int8 (tcgen05.mma .kind::i8).",
    "UTCOMMA": "Blackwell tensor-core MMA on block-scaled narrow formats.",
    "UTCBAR": "Make a shared-memory barrier track completion of earlier tcgen05 MMAs "
    "(tcgen05.commit).",
    "UTCCP": "Copy from shared memory into tensor memory (tcgen05.cp).",
    "LDTM": "Load from tensor memory into registers (tcgen05.ld).",
    "STTM": "Store registers into tensor memory (tcgen05.st).",
    # floating point
    "FFMA": "fp32 fused multiply-add: a*b+c with one rounding. The workhorse of non-tensor math.",
    "FADD": "fp32 add.",
    "FMUL": "fp32 multiply.",
    "FMNMX": "fp32 minimum or maximum, chosen by a predicate operand.",
    "FSETP": "Compare fp32 values and set predicate registers.",
    "FSEL": "Select one of two fp32 values by a predicate.",
    "FCHK": "Check whether an fp32 division needs the slow path (denormals, overflow).",
    "HFMA2": "Two fp16 (or bf16) fused multiply-adds packed in one 32-bit register. "
    "HFMA2.MMA runs on the tensor-core datapath and is often just a register move.",
    "HADD2": "Two packed fp16 additions.",
    "HMUL2": "Two packed fp16 multiplications.",
    "DFMA": "fp64 fused multiply-add.",
    "DADD": "fp64 add.",
    "DMUL": "fp64 multiply.",
    "MUFU": "Multi-function unit: fast approximate reciprocal, square root, exp2, log2, sine, "
    "cosine (.RCP, .RSQ, .EX2, .LG2, .SIN, .COS). Lower throughput than FFMA.",
    "F2F": "Convert between floating-point formats (fp32 to fp16 ...).",
    "F2I": "Convert floating point to integer.",
    "I2F": "Convert integer to floating point.",
    "F2FP": "Convert and pack two fp32 values into a pair of narrower floats (fp16/bf16).",
    "FRND": "Round a float to an integral value, kept as a float.",
    # integer and logic
    "IMAD": "Integer multiply-add. Also used for plain moves (IMAD.MOV) and shifts, since "
    "it runs on a different pipe than the ALU ops; .WIDE gives a 64-bit result.",
    "IADD3": "Add three integers in one instruction.",
    "IMNMX": "Integer minimum or maximum.",
    "VIMNMX": "Integer minimum or maximum (sm_90+ form).",
    "ISETP": "Compare integers and set predicate registers (.LT, .GE, ...), optionally "
    "combined with another predicate (.AND, .OR).",
    "LOP3": "Any bitwise function of three inputs, chosen by an 8-bit lookup table (LUT).",
    "PLOP3": "Any logic function of three predicates.",
    "SHF": "Funnel shift: shift a 64-bit pair of registers, keep 32 bits (.L left, .R right).",
    "SHL": "Shift left.",
    "SHR": "Shift right.",
    "LEA": "Load effective address: (a << shift) + b, a common way to compute an address.",
    "SEL": "Select one of two values by a predicate.",
    "PRMT": "Permute bytes from two registers into one (byte shuffles, packing).",
    "POPC": "Count the set bits.",
    "FLO": "Find the leading one (most significant set bit).",
    "BREV": "Reverse the bits.",
    "BMSK": "Build a bit mask of a given width at a given position.",
    "IABS": "Integer absolute value.",
    # moves and special registers
    "MOV": "Copy a value into a register.",
    "UMOV": "Copy a value into a uniform register.",
    "S2R": "Read a special register (thread index, block index, clock ...) into a register.",
    "S2UR": "Read a special register into a uniform register.",
    "CS2R": "Read a special register (often the clock, or zero for two registers) fast.",
    "R2UR": "Copy a per-thread register into a uniform register (the value must be the same "
    "in every thread).",
    "P2R": "Pack predicate registers into a general register.",
    "R2P": "Unpack a general register into predicate registers.",
    "SHFL": "Warp shuffle: read a register from another lane of the warp (.IDX, .UP, .DOWN, "
    ".BFLY).",
    "VOTE": "Warp vote: all / any / ballot of a predicate across the warp.",
    "VOTEU": "Warp vote into a uniform register.",
    "REDUX": "Warp-wide reduction (sum, min, max, and, or, xor) of an integer register.",
    "MATCH": "Find the lanes of the warp that hold the same value.",
    "ELECT": "Elect one active lane of the warp (PTX elect.sync).",
    # uniform datapath
    "UIADD3": "IADD3 on uniform registers: one value for the whole warp, computed once.",
    "UIMAD": "IMAD on uniform registers.",
    "ULEA": "LEA on uniform registers.",
    "USHF": "SHF on uniform registers.",
    "ULOP3": "LOP3 on uniform registers.",
    "UISETP": "ISETP on uniform registers, setting a uniform predicate.",
    "USEL": "SEL on uniform registers.",
    # control
    "BRA": "Branch. With a predicate (@P0 BRA) only the threads whose predicate holds jump; "
    "BRA.U / BRA.DIV mark uniform or divergent branches.",
    "BRX": "Indirect branch to an address in a register (switch jump tables).",
    "JMP": "Jump to an absolute address.",
    "CALL": "Call a subroutine (a non-inlined device function).",
    "RET": "Return from a subroutine.",
    "EXIT": "End the thread.",
    "BSSY": "Push a reconvergence point for a divergent region (pairs with BSYNC).",
    "BSYNC": "Wait until the threads that diverged since the matching BSSY reconverge.",
    "BREAK": "Leave a reconvergence region early.",
    "WARPSYNC": "Reconverge the threads of the warp named by a mask (PTX bar.warp.sync).",
    "BAR": "Thread-block barrier (__syncthreads, bar.sync): every warp waits here until all "
    "have arrived. .ARV arrives without waiting; .RED also reduces a predicate.",
    "BARRIER": "Named barrier (sm_100+ form of BAR).",
    "NANOSLEEP": "Suspend the thread for about the given number of nanoseconds.",
    "YIELD": "Hint that the warp may be switched out (spin loops).",
    "NOP": "No operation: padding so that the next function or branch target is aligned.",
    "KILL": "Terminate the thread (discard).",
    "UCGABAR_ARV": "Arrive on the thread-block-cluster barrier.",
    "UCGABAR_WAIT": "Wait on the thread-block-cluster barrier.",
    "ACQBULK": "Wait for bulk (TMA) operations before reusing their shared memory.",
}

MODIFIERS: dict[str, str] = {
    "E": "64-bit (extended) address",
    "128": "128 bits per thread (four 32-bit registers)",
    "64": "64 bits per thread (a register pair)",
    "256": "256 bits per thread (sm_100+)",
    "U8": "unsigned 8-bit value",
    "S8": "signed 8-bit value",
    "U16": "unsigned 16-bit value",
    "S16": "signed 16-bit value",
    "U32": "unsigned 32-bit integer",
    "S32": "signed 32-bit integer",
    "U64": "unsigned 64-bit integer",
    "S64": "signed 64-bit integer",
    "F32": "fp32",
    "F16": "fp16",
    "BF16": "bfloat16",
    "F64": "fp64",
    "TF32": "tf32 inputs",
    "F16x2": "two packed fp16 values",
    "CONSTANT": "read-only data path (const __restrict__ or __ldg): cached as non-coherent",
    "STRONG": "strong (coherent) memory ordering at the scope that follows",
    "WEAK": "weak (plain) memory access",
    "GPU": "scope: the whole GPU",
    "SYS": "scope: the whole system (host and peers)",
    "SM": "scope: the streaming multiprocessor",
    "CTA": "scope: the thread block",
    "EF": "cache hint: evict first",
    "EL": "cache hint: evict last",
    "LU": "cache hint: last use",
    "NA": "cache hint: do not allocate in L1",
    "LTC64B": "L2 prefetch of 64 bytes",
    "LTC128B": "L2 prefetch of 128 bytes",
    "LTC256B": "L2 prefetch of 256 bytes",
    "ZFILL": "fill with zeros what was not copied (cp.async with src-size)",
    "BYPASS": "bypass L1 (cp.async.cg)",
    "WIDE": "64-bit result from 32-bit operands",
    "MOV": "used as a plain move",
    "HI": "the high half of the product",
    "X": "with carry in/out (multi-word arithmetic)",
    "SHL": "shift left",
    "SYNC": "wait for the other threads",
    "ARV": "arrive without waiting",
    "RED": "reduce a predicate across the block",
    "DEFER_BLOCKING": "the default barrier behaviour on sm_70+",
    "AND": "combine the result with a predicate by AND",
    "OR": "combine the result with a predicate by OR",
    "XOR": "combine the result with a predicate by XOR",
    "LT": "less than",
    "LE": "less or equal",
    "GT": "greater than",
    "GE": "greater or equal",
    "EQ": "equal",
    "NE": "not equal",
    "NEU": "not equal or unordered (NaN)",
    "GEU": "greater/equal or unordered (NaN)",
    "LTU": "less than or unordered (NaN)",
    "FTZ": "flush denormals to zero",
    "RN": "round to nearest even",
    "RZ": "round toward zero",
    "RM": "round toward minus infinity",
    "RP": "round toward plus infinity",
    "SAT": "clamp the result to [0, 1]",
    "RCP": "reciprocal",
    "RSQ": "reciprocal square root",
    "SQRT": "square root",
    "EX2": "2 to the power",
    "LG2": "base-2 logarithm",
    "SIN": "sine",
    "COS": "cosine",
    "TANH": "hyperbolic tangent",
    "IDX": "read from the lane given by index",
    "UP": "read from a lower lane (lane - n)",
    "DOWN": "read from a higher lane (lane + n)",
    "BFLY": "read from lane XOR n (butterfly)",
    "ALL": "true if the predicate holds in every active lane",
    "ANY": "true if the predicate holds in some active lane",
    "M88": "8x8 matrices",
    "M88.4": "four 8x8 matrices",
    "TRANS": "transpose while loading",
    "U": "uniform: every thread takes the same path",
    "DIV": "divergent: threads may take different paths",
    "L": "left",
    "R": "right",
    "LUT": "bitwise function given as a lookup table",
    "reuse": "operand-reuse cache: the next instruction reads this register without a "
    "register-file access",
    "16816": "shape m16n8k16",
    "1688": "shape m16n8k8",
    "16832": "shape m16n8k32",
    "884": "shape m8n8k4",
    "64x8x16": "warpgroup shape m64n8k16",
    "SP": "sparse A operand (2:4 structured sparsity)",
    "ARRIVE": "arrive on a barrier object",
    "TRYWAIT": "poll a barrier object phase",
    "PHASECHK": "check a barrier object's phase",
    "EXCH": "initialise (exchange into) a barrier object",
    "DEPBAR": "wait for outstanding operations",
    "IM2COL": "im2col tensor-map mode (convolutions)",
    "TILE": "tiled tensor-map mode",
    "MULTICAST": "copy to several CTAs of the cluster",
}


@dataclass(frozen=True, slots=True)
class OpcodeHelp:
    mnemonic: str
    opcode: str
    summary: str
    category: str
    modifiers: tuple[tuple[str, str], ...]  # (modifier, meaning) for the ones we know
    unknown: tuple[str, ...]  # modifiers we have no note for
    url: str = NVIDIA_SASS_DOCS


def describe(mnemonic: str) -> OpcodeHelp:
    """Help for `LDG.E.128.CONSTANT` (an opcode with its modifiers, as nvdisasm prints it)."""
    opcode, *mods = mnemonic.split(".")
    base = opcode.upper()
    summary = OPCODES.get(base, "")
    if not summary and base.startswith("U") and base[1:] in OPCODES:
        summary = "The uniform-datapath form (one value per warp) of " + base[1:] + ". "
        summary += OPCODES[base[1:]]
    known: list[tuple[str, str]] = []
    unknown: list[str] = []
    i = 0
    while i < len(mods):
        pair = ".".join(mods[i : i + 2])
        if len(mods) > i + 1 and pair in MODIFIERS:  # M88.4
            known.append((pair, MODIFIERS[pair]))
            i += 2
            continue
        m = mods[i]
        meaning = MODIFIERS.get(m) or MODIFIERS.get(m.upper())
        if meaning:
            known.append((m, meaning))
        else:
            unknown.append(m)
        i += 1
    return OpcodeHelp(
        mnemonic=mnemonic,
        opcode=base,
        summary=summary or "No note of ours for this opcode yet; see NVIDIA's table.",
        category=category(base),
        modifiers=tuple(known),
        unknown=tuple(unknown),
    )


def explain_control(code: ControlCode) -> tuple[tuple[str, str], ...]:
    """The fields of an instruction's control code (`B0-2---:R-:W1:Y:S04`), in words: the
    schedule ptxas planned (sassview.binary.control), not what the hardware measured."""
    waits = ", ".join(f"SB{n}" for n in code.waits)
    slots = [slot for n, slot in enumerate("ABCD") if code.reuse >> n & 1]
    return (
        ("B", f"waits for scoreboards {waits} before issuing" if waits else "waits for none"),
        (
            "R",
            f"sets SB{code.read} until its source registers are read"
            if code.read is not None
            else "sets no read scoreboard",
        ),
        (
            "W",
            f"sets SB{code.write} until its result is written (variable latency)"
            if code.write is not None
            else "sets no write scoreboard",
        ),
        ("Y", "the scheduler may switch warps here" if code.yield_hint else "no yield hint"),
        ("S", f"the warp's next instruction issues {code.stall} cycles later at the earliest"),
        (
            "reuse",
            f"operand slots {', '.join(slots)} kept in the reuse cache"
            if slots
            else "no operand kept in the reuse cache",
        ),
    )
