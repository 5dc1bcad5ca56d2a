"""Assemble the model of one cubin: ELF resources + SASS (JSON and text) + PTX + ptxas report.

This is the only place the readers meet. The JSON listing gives the instructions and nvdisasm's
marks; the text listing adds the inline chain, the PTX line and the label table; the ELF gives
resources; the ptxas report gives spill bytes; the PTX `.loc` lines give PTX -> source.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

from sassview.binary.elf import CubinInfo, read_cubin
from sassview.disasm import disassemble
from sassview.errors import ParseError
from sassview.ir import Artifacts, Correspondence, Kernel, Program, PtxFunction, PtxModule, SassInstruction
from sassview.parse.ptx import parse_ptx
from sassview.parse.ptxas_log import PtxasReport, parse_ptxas_log
from sassview.parse.sass import SassFunction, SassListing, resolve_label_targets
from sassview.parse.sass_json import parse_sass_json
from sassview.parse.sass_text import parse_sass_text


def demangle(name: str) -> str:
    if not name.startswith("_Z"):
        return name
    try:
        import cxxfilt

        return str(cxxfilt.demangle(name))
    except Exception:  # no libstdc++ demangler, or a name it rejects: show it as it is
        return name


def build_program(artifacts: Artifacts, *, where: str = "<cubin>") -> Program:
    info = read_cubin(artifacts.cubin, where)
    disassembly = disassemble(artifacts.cubin)
    listing = parse_sass_json(disassembly.json, where=f"{where} (nvdisasm -json)")
    text = parse_sass_text(disassembly.text, where=f"{where} (nvdisasm)")
    ptx_text = artifacts.ptx
    ptx = parse_ptx(ptx_text, where=f"{where} (PTX)") if ptx_text else None
    reports = parse_ptxas_log(artifacts.compile_log)
    if info.arch and info.arch != artifacts.arch:
        artifacts = dataclasses.replace(artifacts, arch=info.arch)
    kernels = tuple(_kernel(info, ck_index, listing, text, ptx, reports, where) for ck_index in range(len(info.kernels)))
    return Program(
        artifacts=artifacts,
        kernels=kernels,
        ptx=ptx,
        abi_version=info.abi_version,
        producer=info.producer,
    )


def _kernel(
    info: CubinInfo,
    index: int,
    listing: SassListing,
    text: SassListing,
    ptx: PtxModule | None,
    reports: Mapping[str, PtxasReport],
    where: str,
) -> Kernel:
    ck = info.kernels[index]
    json_func = listing.function(ck.name)
    text_func = text.function(ck.name)
    if json_func is None and text_func is None:
        raise ParseError(f"nvdisasm printed no code for kernel {ck.name}", where=where)
    instructions = _merge(json_func, text_func)
    report = reports.get(ck.name)
    resources = ck.resources
    if report is not None and report.spill_stores is not None:
        resources = dataclasses.replace(
            resources, spill_store_bytes=report.spill_stores, spill_load_bytes=report.spill_loads
        )
    ptx_func = ptx.function(ck.name) if ptx else None
    return Kernel(
        name=ck.name,
        display_name=demangle(ck.name),
        arch=info.arch,
        resources=resources,
        instructions=instructions,
        correspondence=_correspondence(instructions, ptx_func),
        ptx=ptx_func,
        is_entry=ck.is_entry,
    )


def _merge(json_func: SassFunction | None, text_func: SassFunction | None) -> tuple[SassInstruction, ...]:
    """JSON instructions, with the text listing's inline chains, PTX lines and label targets."""
    if json_func is None:
        assert text_func is not None
        return text_func.instructions
    if text_func is None:
        return json_func.instructions
    by_address = {ins.address: ins for ins in text_func.instructions}
    merged = []
    for ins in json_func.instructions:
        twin = by_address.get(ins.address)
        if twin is not None and (twin.source is not None or twin.ptx_line is not None):
            # The text listing's chain is more precise, but only take it when it agrees with
            # the JSON's line (they come from the same line table, so they should).
            source = ins.source
            if twin.source is not None and (
                ins.source is None or (twin.source.file, twin.source.line) == (ins.source.file, ins.source.line)
            ):
                source = twin.source
            ins = dataclasses.replace(ins, source=source, ptx_line=twin.ptx_line)
        merged.append(ins)
    func = SassFunction(json_func.name, tuple(merged), text_func.labels)
    return resolve_label_targets(func).instructions


def _correspondence(instructions: tuple[SassInstruction, ...], ptx_func: PtxFunction | None) -> Correspondence:
    sass_source = {i.address: i.source for i in instructions if i.source is not None}
    sass_ptx = {i.address: i.ptx_line for i in instructions if i.ptx_line is not None}
    ptx_source = {}
    if ptx_func is not None:
        ptx_source = {p.line: p.source for p in ptx_func.instructions if p.source is not None}
    return Correspondence(
        MappingProxyType(sass_source), MappingProxyType(sass_ptx), MappingProxyType(ptx_source)
    )
