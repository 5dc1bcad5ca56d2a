"""What a short retry loop waits on: the one reading of a spin loop that the warp partitions,
the loop census and every view share.

ptxas makes a loop of one PTX instruction that may have to be retried: `setmaxnreg.inc`
(`USETMAXREG.TRY_ALLOC` until the CTA's pool has the registers), `tcgen05.alloc`
(`UTCATOMSWS` until the tensor memory is free), an atomic with no instruction of its own
(`atom.shared.add.f32`: load, add, `ATOMS.CAST.SPIN` until no other thread wrote between); an
mbarrier try-wait is retried by the code
around it (inline asm, Triton's lowering) or by ptxas. Such a loop is no copy of any loop
statement, though the line table gives it the line of the statement around it (a Triton
partition's setmaxnreg at its K loop's `for`).

How it can be wrong: a loop of six instructions or fewer holding a try is read as a spin
whatever else it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from sassview.ir import SassInstruction

SETMAXNREG_RETRY = "setmaxnreg retry"
TMEM_ALLOC_RETRY = "tensor-memory alloc retry"
MBARRIER_WAIT = "mbarrier wait"
# ptxas' loop around a shared-memory float atomicAdd it cannot issue as one atomic (LDS, FADD,
# `ATOMS.CAST.SPIN`, branch back): a copy of the statement's code, counted with it (measure.py)
ATOMIC_CAS_RETRY = "atomic CAS retry"
# The loop a warp-specialized kernel's worker warps run around its jump table (`BRX`/`JMX`),
# each trip sending them to their partition's code: no loop statement's either.
WORKER_DISPATCH = "worker dispatch"

# The retry loops ptxas and the frontends' lowering leave, by what they wait for.
_SPINS: tuple[tuple[str, Callable[[SassInstruction], bool]], ...] = (
    (MBARRIER_WAIT, lambda i: i.opcode == "SYNCS" and "PHASECHK" in i.modifiers),
    (SETMAXNREG_RETRY, lambda i: i.opcode == "USETMAXREG"),
    (TMEM_ALLOC_RETRY, lambda i: i.opcode == "UTCATOMSWS"),
    (ATOMIC_CAS_RETRY, lambda i: i.opcode == "ATOMS" and "CAST" in i.modifiers),
)
SPIN_KINDS = tuple(kind for kind, _ in _SPINS)
# Retries of an instruction no loop statement can hold: PTX has one instruction for each, and
# only ptxas' retry makes a loop of it.
_ONE_INSTRUCTION = frozenset({SETMAXNREG_RETRY, TMEM_ALLOC_RETRY})
_MOST = 6  # instructions of a spin loop's trip


def spin_kind(body: Iterable[SassInstruction]) -> str | None:
    """What a short loop spins on (an mbarrier's phase, a register reallocation, a
    tensor-memory allocation), or None for a loop of the kernel's own."""
    ops = list(body)
    if len(ops) > _MOST:
        return None
    return next((kind for kind, test in _SPINS if any(test(i) for i in ops)), None)


def dispatches(body: Iterable[SassInstruction]) -> bool:
    """Whether a loop holds a jump table's branch (`BRX`, `JMX`): the worker warps' dispatch."""
    return any(i.opcode in ("BRX", "JMX") for i in body)


def loose_kind(body: Sequence[SassInstruction], whole: Iterable[SassInstruction]) -> str | None:
    """What a loop of no statement waits on or runs, by which every view names it: a spin
    (`spin_kind` of one trip, `body`), else the worker warps' dispatch (a jump table anywhere
    in `whole`, its nested loops too); None for one that is neither."""
    return spin_kind(body) or (WORKER_DISPATCH if dispatches(whole) else None)


def ptxas_retry(body: Sequence[SassInstruction], ptx_lines: Sequence[int | None]) -> str | None:
    """The kind of a spin loop ptxas made of one PTX instruction (`spin_kind`), else None.
    `body`: one trip's instructions; `ptx_lines`: the PTX line each came from (empty where the
    listing has none: a cubin read alone). ptxas' loop branches back from the line of the
    instruction it retries (the NOP it pads with may carry the line before); a loop whose
    branch back is a PTX line of its own (a try, then `@!p bra` back) is the PTX's loop, a
    statement's or inline asm's. Without PTX lines, only the retries of an instruction no PTX
    loop can be (setmaxnreg, tcgen05.alloc) are read as ptxas'."""
    kind = spin_kind(body)
    if kind is None:
        return None
    if not ptx_lines:
        return kind if kind in _ONE_INSTRUCTION else None
    test = dict(_SPINS)[kind]
    tries = {n for i, n in zip(body, ptx_lines, strict=True) if test(i)}
    back = {n for i, n in zip(body, ptx_lines, strict=True) if i.opcode == "BRA"}
    return kind if back and back <= tries else None
