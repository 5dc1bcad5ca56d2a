"""The per-kernel facts `sassview check` reports, as plain data (the JSON output's schema).

Documented in docs/json.md; `schema_version` changes whenever a field changes meaning or goes.
"""

from __future__ import annotations

from typing import Any

from sassview.ir import SCHEMA_VERSION, Kernel, Program
from sassview.opcodes import category


def kernel_summary(kernel: Kernel) -> dict[str, Any]:
    r = kernel.resources
    mix: dict[str, int] = {}
    for ins in kernel.instructions:
        if ins.opcode == "NOP":
            continue
        cat = category(ins.opcode)
        mix[cat] = mix.get(cat, 0) + 1
    opcodes = {k: v for k, v in sorted(kernel.opcode_counts().items()) if k != "NOP"}
    return {
        "name": kernel.name,
        "display_name": kernel.display_name,
        "arch": kernel.arch,
        "is_entry": kernel.is_entry,
        "resources": {
            "registers": r.registers,
            "stack_frame_bytes": r.stack_frame,
            "spill_store_bytes": r.spill_store_bytes,
            "spill_load_bytes": r.spill_load_bytes,
            "shared_bytes": r.shared_user,
            "shared_reserved_bytes": r.shared_reserved,
            "local_bytes": r.local,
            "constant_bytes": {str(bank): size for bank, size in sorted(r.constant.items())},
            "max_threads": r.max_threads,
            "maxntid": list(r.maxntid) if r.maxntid else None,
            "reqntid": list(r.reqntid) if r.reqntid else None,
            "min_blocks_per_sm": r.min_blocks_per_sm,
            "max_registers": r.max_registers,
            "barriers": r.barriers,
            "param_bytes": r.param_bytes,
        },
        "instruction_count": sum(mix.values()),
        "mix": dict(sorted(mix.items(), key=lambda kv: (-kv[1], kv[0]))),
        "opcodes": opcodes,
    }


def program_summary(program: Program, *, kernel: str | None = None) -> dict[str, Any]:
    a = program.artifacts
    kernels = [program.kernel(kernel)] if kernel else list(program.kernels)
    return {
        "source": a.source_path,
        "kind": a.kind,
        "arch": program.arch,
        "producer": program.producer,
        "elf_abi_version": program.abi_version,
        "options": list(a.options),
        "toolchain": dict(a.toolchain),
        "kernels": [kernel_summary(k) for k in kernels],
    }


def check_document(programs: list[dict[str, Any]], toolchain: dict[str, str]) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "sassview": _version(),
        "toolchain": toolchain,
        "programs": programs,
    }


def _version() -> str:
    from sassview import __version__

    return __version__
