"""`explain`: what a finding kind means and which analysis gives it, or an opcode in words.

The finding kinds are the analyses' own (each `Annotation(kind, ...)` in sassview/analyses;
tests/test_mcp.py checks that every kind an analysis can give has its line here). The opcode
notes are the TUI's (sassview/tui/opcode_help.py): one table, two views.
"""

from __future__ import annotations

from typing import Any

from sassview.errors import InputError

DOCS = "docs/analyses.md"

# kind -> (its analysis' section of docs/analyses.md, what the finding says)
FINDINGS: dict[str, tuple[str, str]] = {
    "unroll": ("Unroll", "how a loop statement was unrolled, against what was asked "
               "(#pragma unroll, cutlass.range unroll=, loop_unroll_factor); a warning when "
               "the request was not met"),
    "macro-override": ("Unroll", "a -D NAME=V the file's own #define replaces: the warning names "
                       "the #define's line and the value the compiler used (so do loop claims)"),
    "uncoalesced": ("Coalescing", "one warp's global access touches more 32-byte sectors "
                    "than its bytes need (lane stride, misalignment or a gather)"),
    "bank-conflict": ("Bank conflicts", "one warp's shared-memory access needs more "
                      "wavefronts than its width needs: an n-way bank conflict"),
    "narrow-access": ("Memory widths", "a global or shared access narrower than the data "
                      "allows (32-bit where 64/128-bit would do)"),
    "merge-candidate": ("Memory widths", "several narrow accesses at consecutive offsets of "
                        "one base that one vector access could replace"),
    "spill": ("Spills and local arrays", "registers spilled to local memory (STL/LDL "
              "marked SpillRefill, or spill bytes in the ptxas report)"),
    "local-array": ("Spills and local arrays", "a per-thread array kept in local memory "
                    "(indexed at run time, so not in registers)"),
    "tensor-core": ("Tensor cores", "the tensor-core path: wgmma, mma.sync, tcgen05, with "
                    "shapes and types, or math that could use one and does not"),
    "async-copy": ("Async copies and synchronisation", "cp.async (LDGSTS), TMA bulk copies "
                   "and the commits/waits that order them"),
    "barrier": ("Async copies and synchronisation", "mbarrier and named-barrier use: "
                "arrives, waits, transaction counts"),
    "exposed-load": ("The schedule of each loop", "a load whose result is used sooner than "
                     "its latency in ptxas' own schedule (the control codes' wait)"),
    "ptxas-advisory": ("What ptxas said", "a numbered ptxas message, in ptxas' words"),
    "wgmma-serialized": ("What ptxas said", "ptxas serialises the wgmma pipeline "
                         "(C7510..C7515): the warpgroup waits on each wgmma"),
    "wgmma-wait-injected": ("What ptxas said", "ptxas added a wgmma.wait_group so "
                            "accumulators can be read (C7517)"),
    "maxrregcount-ignored": ("A register cap that does not apply", "-maxrregcount was given "
                             "but launch bounds or another cap decide the registers"),
    "register-budget": ("Register budgets per warp group", "setmaxnreg budgets per warp "
                        "group against the block's register pool"),
    "runtime-stride": ("A contiguous stride passed at run time", "a Triton stride known "
                       "only at run time that keeps loads narrow (tl.multiple_of / a "
                       "constexpr stride of 1 would let them widen)"),
    "warp-partition": ("Warp partitions", "a warp-specialised Triton kernel's partitions "
                       "and their loops"),
}  # fmt: skip


def explain(finding: str | None = None, opcode: str | None = None) -> dict[str, Any]:
    """Notes on a finding kind and/or an opcode (`LDG.E.128.CONSTANT`, modifiers too)."""
    if not finding and not opcode:
        return {"findings": {k: v[1] for k, v in sorted(FINDINGS.items())}}
    reply: dict[str, Any] = {}
    if finding:
        if finding not in FINDINGS:
            raise InputError(
                f"no finding kind {finding!r}", "one of " + ", ".join(sorted(FINDINGS))
            )
        section, meaning = FINDINGS[finding]
        reply["finding"] = {
            "kind": finding,
            "meaning": meaning,
            "docs": f"{DOCS}, section {section!r}",
        }
    if opcode:
        from sassview.tui.opcode_help import describe

        note = describe(opcode)
        reply["opcode"] = {
            "mnemonic": note.mnemonic, "opcode": note.opcode, "summary": note.summary,
            "category": note.category, "modifiers": dict(note.modifiers),
            "unknown_modifiers": list(note.unknown), "reference": note.url,
        }  # fmt: skip
    return reply
