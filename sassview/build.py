"""Assemble the model of one cubin: ELF resources + SASS (JSON and text) + PTX + ptxas report.

This is the only place the readers meet. The JSON listing gives the instructions and nvdisasm's
marks; the text listing adds the inline chain, the PTX line and the label table; the ELF gives
resources; the ptxas report gives spill bytes; the PTX `.loc` lines give PTX -> source.

A model once built is cached (`sassview.cache.pickled`), keyed by the artifacts it was built
from and nvdisasm's version: a warm run loads it instead of reading the listings again, and
imports none of the readers (they are imported in `assemble_program`, where they are used).
With its Inspections it is cached first-kernel first: a reader that shows one kernel can have
it before the others are loaded (`first_kernel`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from sassview.cache import pickled
from sassview.cache.store import digest
from sassview.errors import ParseError
from sassview.gcpause import without_gc
from sassview.ir import (
    SCHEMA_VERSION,
    Artifacts,
    Correspondence,
    Kernel,
    Program,
    PtxFunction,
    PtxModule,
    SassInstruction,
)
from sassview.memo import Memo
from sassview.toolchain.locate import nvdisasm_identity, nvdisasm_version

if TYPE_CHECKING:
    from sassview.binary.elf import CubinKernel
    from sassview.parse.inline_asm import CallSites
    from sassview.parse.ptxas_log import PtxasReport
    from sassview.parse.sass import SassListing

MODEL = "model"  # the cache's entry kind
log = logging.getLogger("sassview")


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
    """The model of `artifacts`: loaded from the cache when this code built it before (with
    what the analyses found, when they ran on it: `analyses_of`), else assembled and cached."""
    key = model_key(artifacts)
    first = _FIRST.get()
    if first is not None:  # only the first model a `first_kernel` block asks for
        _FIRST.set(None)
    for entry in (_analysed(key), key):
        lead = _lead_reader(first, artifacts) if first is not None else None
        found = pickled.get(MODEL, entry, accept=_is_cached_model, lead=lead)
        if found is not None:
            analysed = "with its inspections" if found[2] else "without inspections"
            log.info("model: cache hit (%d kernels, %s)", len(found[0].kernels), analysed)
            program = _with_artifacts(found[0], _as_built(artifacts, found[1]))
            _remember(_Built(program, key, found[1], _with_program(found[2], program)))
            return program
    program = assemble_program(artifacts, where=where)
    own = None if program.artifacts is artifacts else program.artifacts
    pickled.put(MODEL, key, (_without_artifacts(program), own, ()))
    _remember(_Built(program, key, own, ()))
    return program


def model_key(artifacts: Artifacts) -> str:
    """The cache key of the model of `artifacts`: every field of them (the model copies some,
    reads the rest), nvdisasm's version (the listings) and the model's schema; the object
    entry adds sassview's code. `where` is not in it: it only names the input in errors."""
    parts = {
        f.name: _fingerprint(getattr(artifacts, f.name)) for f in dataclasses.fields(artifacts)
    }
    parts["compile_log"] = _fingerprint(_COMPILE_TIME.sub("", artifacts.compile_log))
    return pickled.object_key(
        MODEL,
        {
            "artifacts": parts,
            "nvdisasm": nvdisasm_version(),
            "nvdisasm_file": nvdisasm_identity(),
            "schema": SCHEMA_VERSION,
        },
    )


# ptxas says how long each function took ("Compile time = 40.908 ms"), which differs between
# two compiles of one source. Nothing in the model reads it (the analyses read its advisories,
# the model its spill counts) and the artifacts are the caller's, so the key leaves it out:
# processes that compiled a kernel at once (pytest -n) share one model.
_COMPILE_TIME = re.compile(r"^ptxas info\s*: Compile time = [0-9.]+ ms$\n?", re.M)


def _analysed(key: str) -> str:
    """The key of the model together with its kernels' Inspections (one pickle: they share
    its instructions and source locations, which a pickle of their own would copy)."""
    return pickled.object_key(MODEL, {"model": key, "with": "inspections"})


def _fingerprint(value: object) -> object:
    """A JSON-able stand-in for one field: long text and bytes by their digest."""
    if isinstance(value, bytes):
        return {"sha256": digest(value)}
    if isinstance(value, str) and len(value) > 256:
        return {"sha256": digest(value.encode("utf-8", "surrogatepass"))}
    if isinstance(value, Mapping):
        return {str(k): _fingerprint(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_fingerprint(v) for v in value]
    return value  # numbers, short text, None; anything else is keyed by its str()


# An entry holds (the Program without its artifacts, the artifacts when the build changed them
# (else None: the caller's, which the key covers, are put back), the Inspections or ()). The
# artifacts stay out because the compile cache holds them already (the cubin and PTX are most
# of their bytes); the Inspections name the Program without them, and get the loaded one back.
def _without_artifacts(program: Program) -> Program:
    return dataclasses.replace(program, artifacts=None)  # type: ignore[arg-type]


def _as_built(given: Artifacts, own: Artifacts | None) -> Artifacts:
    """The caller's artifacts, with what assemble_program changes in them (the PTX a bare
    cubin carries, the arch its ELF names) as the build changed it."""
    return given if own is None else dataclasses.replace(given, ptx=own.ptx, arch=own.arch)


def _with_artifacts(program: Program, artifacts: Artifacts) -> Program:
    return dataclasses.replace(program, artifacts=artifacts)


def _with_program(inspections: tuple[Any, ...], program: Program) -> tuple[Any, ...]:
    # Their kernels are already the loaded program's (one pickle): only the Program changes.
    return tuple(dataclasses.replace(i, program=program) for i in inspections)


def _is_cached_model(found: object) -> bool:
    """(Program, Artifacts | None, Inspections of that Program's kernels)? Checked before use:
    what fails here is refused like a damaged entry."""
    if not (isinstance(found, tuple) and len(found) == 3 and isinstance(found[0], Program)):
        return False
    program, own, inspections = found
    kernels = {id(k) for k in program.kernels}
    return (
        isinstance(own, Artifacts | None)
        and isinstance(inspections, tuple)
        and all(
            dataclasses.is_dataclass(i)
            and getattr(i, "program", None) is program
            and id(getattr(i, "kernel", None)) in kernels
            for i in inspections
        )
    )


class FirstKernel(NamedTuple):
    """The first kernel of a cached model with its Inspection's parts, loaded before the other
    kernels (a 65k-instruction file of 8 kernels: 34 of its 165 ms of unpickling). No Program:
    the one `build_program` returns holds them all; `inspection` is the Inspection's fields by
    name, all but `program`."""

    artifacts: Artifacts  # the Program's, as build_program returns it
    inspection: Mapping[str, Any]


_FIRST: ContextVar[Callable[[FirstKernel], None] | None] = ContextVar("first_kernel", default=None)


@contextmanager
def first_kernel(show: Callable[[FirstKernel], None]) -> Iterator[None]:
    """Inside the block, the first model `build_program` asks for, when it is cached with its
    Inspections, calls `show` with its first kernel before it loads the rest (and returns once
    `show` has): for a view that paints one kernel at once (the TUI). Not called otherwise (a
    cold build, a model cached without its analyses)."""
    token = _FIRST.set(show)
    try:
        yield
    finally:
        _FIRST.reset(token)


def _lead(program: Program, own: Artifacts | None, inspections: tuple[Any, ...]) -> object:
    """What an analysed entry holds first: (own, the first Inspection's fields but its
    program), so that its pickle holds no Program; None for a program with no kernels."""
    if not inspections:
        return None
    first = inspections[0]
    fields = {f.name: getattr(first, f.name) for f in dataclasses.fields(first)}
    if fields.pop("program", None) is not program or fields.get("kernel") is not program.kernels[0]:
        return None
    return (own, fields)


def _lead_reader(show: Callable[[FirstKernel], None], given: Artifacts) -> Callable[[Any], None]:
    """The entry's lead, checked, to `show` (what fails the check is simply not shown)."""

    def read(lead: Any) -> None:
        own, fields = lead if isinstance(lead, tuple) and len(lead) == 2 else (None, None)
        if (
            isinstance(own, Artifacts | None)
            and isinstance(fields, dict)
            and isinstance(fields.get("kernel"), Kernel)
        ):
            show(FirstKernel(_as_built(given, own), MappingProxyType(fields)))

    return read


# The models this process built or loaded: their keys and Inspections, so that the analyses
# are cached with the model (`sassview.inspection`). By identity: a Program changed by hand
# (dataclasses.replace) is a new object and is not found here, so nothing is cached for it.
# Bounded: it holds the programs alive, and a long session (the TUI, a pytest run) builds many.
class _Built(NamedTuple):
    program: Program
    key: str
    own: Artifacts | None  # the artifacts the build changed, else None
    inspections: tuple[Any, ...]


_BUILT: Memo[int, _Built] = Memo("build.programs", 64)


def _remember(built: _Built) -> None:
    _BUILT.pop(id(built.program), None)
    _BUILT[id(built.program)] = built


def _built(program: Program) -> _Built | None:
    found = _BUILT.get(id(program))
    return found if found is not None and found.program is program else None


def analyses_of(program: Program) -> tuple[Any, ...] | None:
    """The Inspections (by sassview.inspection, one per kernel in order) cached with
    `program`'s model; () when there are none yet; None for a Program this process did not
    build or load."""
    found = _built(program)
    return found.inspections if found is not None else None


def cache_analyses(program: Program, inspections: tuple[Any, ...]) -> None:
    """Cache `program`'s model again with its kernels' Inspections, which replace it."""
    found = _built(program)
    if found is None or found.inspections:
        return  # not built here, or cached with its analyses already
    stripped = _without_artifacts(program)
    named = tuple(dataclasses.replace(i, program=stripped) for i in inspections)
    lead = _lead(stripped, found.own, named)
    if pickled.put(MODEL, _analysed(found.key), (stripped, found.own, named), lead=lead):
        pickled.discard(MODEL, found.key)
    _remember(found._replace(inspections=inspections))


def assemble_program(artifacts: Artifacts, *, where: str = "<cubin>") -> Program:
    """Build the model from the listings, with no model cache (benchmarks/ time this)."""
    from sassview.binary.elf import read_cubin
    from sassview.disasm import disassembling
    from sassview.parse.inline_asm import CallSites, asm_blocks
    from sassview.parse.ptx import parse_ptx
    from sassview.parse.ptxas_log import parse_ptxas_log
    from sassview.parse.sass_json import parse_sass_json
    from sassview.parse.sass_text import parse_sass_text, read_line_info

    info = read_cubin(artifacts.cubin, where)
    # A bare cubin still carries the PTX it came from when it was built with line info; keep it
    # in the artifacts so views can show it (its .loc lines are blanked: no PTX -> source).
    ptx_text = artifacts.ptx or info.debug_ptx
    if ptx_text and not artifacts.ptx:
        artifacts = dataclasses.replace(artifacts, ptx=ptx_text)
    with disassembling(artifacts.cubin, ptx_text) as listings:
        # The PTX does not depend on the SASS: read it while nvdisasm runs.
        ptx = parse_ptx(ptx_text, where=f"{where} (PTX)") if ptx_text else None
        disassembly = listings()
    if disassembly.json:  # spill marks were possible: the JSON has them, the text the rest
        line_info = read_line_info(disassembly.text, where=f"{where} (nvdisasm)")
        listing = parse_sass_json(
            disassembly.json, where=f"{where} (nvdisasm -json)", line_info=line_info
        )
    else:  # no spill to mark: the text listing says everything (disasm/forms.py)
        listing = parse_sass_text(disassembly.text, where=f"{where} (nvdisasm)")
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
    if artifacts.kernels_in:
        kernels = _defined_in(kernels, artifacts.kernels_in)
    kernels = in_source_order(kernels, ptx)
    return Program(
        artifacts=artifacts,
        kernels=kernels,
        ptx=ptx,
        abi_version=info.abi_version,
        producer=info.producer,
    )


def in_source_order(kernels: tuple[Kernel, ...], ptx: PtxModule | None) -> tuple[Kernel, ...]:
    """The kernels as the source defines them: the ELF lists them in reverse (ptxas emits the
    last one first), and every view lists what this returns. By the first line of each one's
    own code (outermost frames, in its own file), then by the PTX's order of `.entry`s
    (template instances share their lines), then as the ELF has them (no line info, no PTX)."""
    ptx_order = {f.name: i for i, f in enumerate(ptx.functions)} if ptx is not None else {}

    def key(item: tuple[int, Kernel]) -> tuple[int, str, int, int, int]:
        elf_index, kernel = item
        outer = [i.source.outermost for i in kernel.instructions if i.source is not None]
        ptx_index = ptx_order.get(kernel.name, len(ptx_order))
        if not outer:
            return (1, "", 0, ptx_index, elf_index)
        home = outer[0].file
        first = min(loc.line for loc in outer if loc.file == home)
        return (0, home, first, ptx_index, elf_index)

    return tuple(k for _, k in sorted(enumerate(kernels), key=key))


def _defined_in(kernels: tuple[Kernel, ...], files: tuple[str, ...]) -> tuple[Kernel, ...]:
    """The kernels whose own code (the outermost frame of their first located instruction) is
    in one of `files`; one with no line to tell is kept (unknown is not someone else's)."""
    import os

    wanted = {os.path.normpath(f) for f in files}

    def home(kernel: Kernel) -> str | None:
        loc = next((i.source for i in kernel.instructions if i.source is not None), None)
        return os.path.normpath(loc.outermost.file) if loc is not None else None

    return tuple(k for k in kernels if (h := home(k)) is None or h in wanted)


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
    from sassview.binary.control import decode_controls

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
