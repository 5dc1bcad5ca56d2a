"""Warp roles of a warp-specialised CuTe DSL kernel, and the wait loops of each role.

Detects, in a kernel's Python source (CuTe DSL; any architecture, made for sm_90a and later):
  - roles: the outermost `if` statements that branch on the warp index (`cute.arch.warp_idx()`,
    or a name computed from it: `warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())`)
    and their `else`/`elif` branches. A branch that gives registers back
    (`setmaxregister_decrease`, `warpgroup_reg_dealloc`) is the "producer", one that takes them
    (`setmaxregister_increase`, `warpgroup_reg_alloc`) the "consumer"; any other is named by its
    condition (`warp_idx == 0`);
  - the wait loops in each role's lines, which are no loop statement of the user's: mbarrier
    waits (`SYNCS.PHASECHK.TRANS64.TRYWAIT` retried after `NANOSLEEP`: a pipeline's
    producer_acquire / consumer_wait / producer_tail), and the retry loop ptxas wraps around
    `setmaxnreg.inc` (`USETMAXREG.TRY_ALLOC`, until the CTA's pool has the registers).
`check` reads the facts to print loops and findings per role, each role's waits on one line.

How it can be wrong: roles come from the source's branch structure, not from the SASS, so a
role whose condition is computed elsewhere (passed in as an argument) is not seen; a branch
with neither setmaxregister call is named by its condition only. A wait loop is recognised by
its instructions (a try-wait or a register-allocation try and little else), at the line its
instructions carry.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from sassview.analyses.base import AnalysisContext, Findings
from sassview.analyses.records import RoleWait, WarpRole, WarpRoleFacts
from sassview.analyses.spins import MBARRIER_WAIT, SETMAXNREG_RETRY
from sassview.ir import SassInstruction
from sassview.memo import memoized

_GIVE_BACK = ("setmaxregister_decrease", "warpgroup_reg_dealloc")
_TAKE = ("setmaxregister_increase", "warpgroup_reg_alloc")
# What a wait loop may hold besides its try: moves, shifts, the sleep and the branch back.
_WAIT_FILLER = frozenset({"IMAD", "MOV", "SHF", "NANOSLEEP", "BRA", "EXIT", "NOP", "PLOP3"})


@dataclass(frozen=True)
class Role:
    name: str  # producer, consumer, or the condition
    condition: str  # `warp_idx < 4`, `not (warp_idx < 4)`
    first_line: int
    last_line: int
    setmaxnreg: int | None  # the register count it asks for, when a literal


def run(ctx: AnalysisContext) -> Findings:
    art = ctx.program.artifacts
    if art.kind != "cute" or not art.source_text or not art.source_path:
        return Findings(facts=WarpRoleFacts(roles=[]))
    lines = {
        i.source.line
        for i in ctx.kernel.instructions
        if i.source is not None and i.source.file == art.source_path
    }
    roles = [
        r for r in roles_in(art.source_text) if any(r.first_line <= n <= r.last_line for n in lines)
    ]
    if not roles:
        return Findings(facts=WarpRoleFacts(roles=[]))
    by_address = {i.address: i for i in ctx.kernel.instructions}
    waits: dict[int, dict[tuple[str, int], list[int]]] = {}  # role -> (kind, line) -> loops
    for loop in ctx.loops:
        kind = wait_kind([by_address[a] for a in loop.addresses if a in by_address])
        line = _line_of(loop, by_address, art.source_path)
        if kind is None or line is None:
            continue
        for n, role in enumerate(roles):
            if role.first_line <= line <= role.last_line:
                waits.setdefault(n, {}).setdefault((kind, line), []).append(loop.index)
    facts = [
        WarpRole(
            name=role.name,
            condition=role.condition,
            first_line=role.first_line,
            last_line=role.last_line,
            setmaxnreg=role.setmaxnreg,
            waits=[
                RoleWait(kind=kind, line=line, loops=len(found), sass_loops=found)
                for (kind, line), found in sorted(waits.get(n, {}).items(), key=_by_line)
            ],
        )
        for n, role in enumerate(roles)
    ]
    return Findings(facts=WarpRoleFacts(roles=facts))


def _by_line(item: tuple[tuple[str, int], list[int]]) -> tuple[int, str]:
    (kind, line), _ = item
    return line, kind


def _line_of(loop: Any, by_address: dict[int, SassInstruction], path: str) -> int | None:
    """The line the loop's try instruction carries (the call that waits)."""
    for a in loop.addresses:
        ins = by_address.get(a)
        if ins is not None and ins.opcode in ("SYNCS", "USETMAXREG") and ins.source is not None:
            return ins.source.line if ins.source.file == path else None
    return None


def wait_kind(instructions: list[SassInstruction]) -> str | None:
    """ "mbarrier wait" for a try-wait loop, "setmaxnreg retry" for a register-allocation retry
    loop (the words of analyses/spins.py, which the census and the warp partitions name them
    by), None for any other loop."""
    opcodes = {i.opcode for i in instructions}
    if "USETMAXREG" in opcodes and opcodes <= _WAIT_FILLER | {"USETMAXREG"}:
        return SETMAXNREG_RETRY
    tries = any(i.opcode == "SYNCS" and "PHASECHK" in i.modifiers for i in instructions)
    if tries and opcodes <= _WAIT_FILLER | {"SYNCS"}:
        return MBARRIER_WAIT
    return None


@memoized(32)
def roles_in(source: str) -> tuple[Role, ...]:
    """The roles of every function in `source` (see the module's docstring)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    out: list[Role] = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out += _roles_of(fn, source, _warp_names(fn))
    return tuple(sorted(set(out), key=lambda r: r.first_line))


def _warp_names(fn: ast.AST) -> frozenset[str]:
    """Names assigned from the warp index, or from such names, in order of assignment."""
    names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and _reads_warp(node.value, names):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(names)


def _reads_warp(node: ast.AST, names: set[str] | frozenset[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and _called(sub) == "warp_idx":
            return True
        if isinstance(sub, ast.Name) and sub.id in names:
            return True
    return False


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _roles_of(fn: ast.AST, source: str, names: frozenset[str]) -> list[Role]:
    """Outermost warp-index `if`s of `fn` outside any loop, a role per branch that holds a
    loop or a setmaxregister call; none unless there are two (a kernel whose warp 0 alone
    issues the loads is not warp-specialised)."""
    out: list[Role] = []

    def visit(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If) and _reads_warp(stmt.test, names):
                out.extend(r for r, b in _branches(stmt, source, names) if _does_work(b))
            elif isinstance(stmt, (ast.If, ast.With, ast.Try)):  # not into loops or functions
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(stmt, field, None) or [])

    visit(getattr(fn, "body", []))
    return out if len(out) > 1 else []


def _does_work(body: list[ast.stmt]) -> bool:
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, (ast.For, ast.While)):
            return True
        if isinstance(node, ast.Call) and _called(node) in (*_GIVE_BACK, *_TAKE):
            return True
    return False


def _branches(
    node: ast.If, source: str, names: frozenset[str]
) -> list[tuple[Role, list[ast.stmt]]]:
    condition = ast.get_source_segment(source, node.test) or ast.unparse(node.test)
    out = [(_role(node.body, condition), node.body)]
    rest = node.orelse
    if len(rest) == 1 and isinstance(rest[0], ast.If) and _reads_warp(rest[0].test, names):
        out += _branches(rest[0], source, names)  # elif
    elif rest:
        out.append((_role(rest, f"not ({condition})"), rest))
    return out


def _role(body: list[ast.stmt], condition: str) -> Role:
    name, count = condition, None
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Call) and _called(node) in (*_GIVE_BACK, *_TAKE):
            name = "producer" if _called(node) in _GIVE_BACK else "consumer"
            first = node.args[0] if node.args else None
            count = first.value if isinstance(first, ast.Constant) else None
            break
    last = max(getattr(s, "end_lineno", None) or s.lineno for s in body)
    return Role(name, condition, body[0].lineno, last, count if isinstance(count, int) else None)
