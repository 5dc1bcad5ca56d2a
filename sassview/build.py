"""Assemble the model of one cubin: ELF resources + SASS (JSON and text) + PTX + ptxas report.

This is the only place the readers meet. The JSON listing gives the instructions and nvdisasm's
marks; the text listing adds the inline chain, the PTX line and the label table; the ELF gives
resources; the ptxas report gives spill bytes; the PTX `.loc` lines give PTX -> source.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from types import MappingProxyType

from sassview.binary.control import decode_controls
from sassview.binary.elf import CubinKernel, read_cubin
from sassview.disasm import disassembling
from sassview.errors import ParseError
from sassview.gcpause import without_gc
from sassview.ir import (
    Artifacts,
    Correspondence,
    Kernel,
    Program,
    PtxFunction,
    PtxModule,
    SassInstruction,
)
from sassview.parse.inline_asm import CallSites, asm_blocks
from sassview.parse.ptx import parse_ptx
from sassview.parse.ptxas_log import PtxasReport, parse_ptxas_log
from sassview.parse.sass import SassListing
from sassview.parse.sass_json import parse_sass_json
from sassview.parse.sass_text import read_line_info


def demangle(name: str) -> str:
    if not name.startswith("_Z"):
        return name
    try:
        import cxxfilt

        text = str(cxxfilt.demangle(name))
        # A function template's mangling carries its return type: a kernel's is always void.
        return text.removeprefix("void ")
    except Exception:  # no libstdc++ demangler, or a name it rejects: show it as it is
        return name


@without_gc  # the model is 10^5 small acyclic records (~15% faster on a 65k cubin)
def build_program(artifacts: Artifacts, *, where: str = "<cubin>") -> Program:
    info = read_cubin(artifacts.cubin, where)
    # A bare cubin still carries the PTX it came from when it was built with line info; keep it
    # in the artifacts so views can show it (its .loc lines are blanked: no PTX -> source).
    ptx_text = artifacts.ptx or info.debug_ptx
    if ptx_text and not artifacts.ptx:
        artifacts = dataclasses.replace(artifacts, ptx=ptx_text)
    with disassembling(artifacts.cubin) as listings:
        # The PTX does not depend on the SASS: read it while nvdisasm runs.
        ptx = parse_ptx(ptx_text, where=f"{where} (PTX)") if ptx_text else None
        disassembly = listings()
    line_info = read_line_info(disassembly.text, where=f"{where} (nvdisasm)")
    listing = parse_sass_json(
        disassembly.json, where=f"{where} (nvdisasm -json)", line_info=line_info
    )
    reports = parse_ptxas_log(artifacts.compile_log)
    if info.arch and info.arch != artifacts.arch:
        artifacts = dataclasses.replace(artifacts, arch=info.arch)
    sites = CallSites(asm_blocks(ptx_text, ptx.files) if ptx is not None else [])
    if ptx is not None and sites:
        ptx = _ptx_at_call_sites(ptx, sites)
    kernels = tuple(
        _kernel(ck, artifacts, info.arch, listing, ptx, reports, sites, where)
        for ck in info.kernels
    )
    return Program(
        artifacts=artifacts,
        kernels=kernels,
        ptx=ptx,
        abi_version=info.abi_version,
        producer=info.producer,
    )


def _short_names(artifacts: Artifacts) -> dict[str, str]:
    """The CuTe DSL's kernels: symbol -> a readable name (frontends/cute_names.py)."""
    try:
        names = json.loads(artifacts.stages.get("names") or "{}")
    except ValueError:
        return {}
    return names if isinstance(names, dict) else {}


def _dynamic_shared(artifacts: Artifacts) -> int | None:
    """Triton's metadata, or the CuTe DSL's launch config (frontends.cute.launch_metadata),
    says how much shared memory the launch requests."""
    meta = artifacts.stages.get("metadata") or artifacts.stages.get("launch")
    if not meta:
        return None
    try:
        value = json.loads(meta).get("shared")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None


def _kernel(
    ck: CubinKernel,
    artifacts: Artifacts,
    arch: str,
    listing: SassListing,
    ptx: PtxModule | None,
    reports: Mapping[str, PtxasReport],
    sites: CallSites,
    where: str,
) -> Kernel:
    func = listing.function(ck.name)
    if func is None:
        raise ParseError(f"nvdisasm printed no code for kernel {ck.name}", where=where)
    instructions = func.instructions
    if sites:  # SASS inside inline asm at the asm statement's line (`parse.inline_asm`)
        instructions = tuple(
            i if (loc := sites.fix(i.source, i.ptx_line)) is i.source else i._replace(source=loc)
            for i in instructions
        )
    ptx_func = ptx.function(ck.name) if ptx else None
    report = reports.get(ck.name)
    resources = ck.resources
    if report is not None and report.spill_stores is not None:
        resources = dataclasses.replace(
            resources, spill_store_bytes=report.spill_stores, spill_load_bytes=report.spill_loads
        )
    dynamic = _dynamic_shared(artifacts)
    if dynamic is not None:
        resources = dataclasses.replace(resources, shared_dynamic=dynamic)
    if ptx_func is not None and resources.min_blocks_per_sm is None and ptx_func.minnctapersm:
        # ptxas folds .minnctapersm into MAXREG_COUNT and keeps no record of it in the cubin.
        resources = dataclasses.replace(resources, min_blocks_per_sm=ptx_func.minnctapersm)
    return Kernel(
        name=ck.name,
        display_name=_short_names(artifacts).get(ck.name) or demangle(ck.name),
        arch=arch,
        resources=resources,
        instructions=instructions,
        correspondence=_correspondence(instructions, ptx_func),
        ptx=ptx_func,
        is_entry=ck.is_entry,
        control=decode_controls(ck.code, arch),
    )


def _ptx_at_call_sites(ptx: PtxModule, sites: CallSites) -> PtxModule:
    """The module with its code inside inline asm at the asm statement's line, and its blocks
    kept for the analyses (`parse.inline_asm`)."""
    functions = tuple(
        dataclasses.replace(
            f,
            instructions=tuple(
                p if (loc := sites.fix(p.source, p.line)) is p.source else p._replace(source=loc)
                for p in f.instructions
            ),
        )
        for f in ptx.functions
    )
    return dataclasses.replace(ptx, functions=functions, inline_asm=tuple(sites.blocks))


def _correspondence(
    instructions: tuple[SassInstruction, ...], ptx_func: PtxFunction | None
) -> Correspondence:
    sass_source = {i.address: i.source for i in instructions if i.source is not None}
    sass_ptx = {i.address: i.ptx_line for i in instructions if i.ptx_line is not None}
    ptx_source = {}
    if ptx_func is not None:
        ptx_source = {p.line: p.source for p in ptx_func.instructions if p.source is not None}
    return Correspondence(
        MappingProxyType(sass_source), MappingProxyType(sass_ptx), MappingProxyType(ptx_source)
    )
