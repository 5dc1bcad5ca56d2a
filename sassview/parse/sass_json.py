"""Read `nvdisasm -c -json -g -annotate` output into SassFunctions.

The JSON (schema 13.x) is a list: [header, [function...], {directories, files}]. Instructions
carry no address; each is 16 bytes from the function's `start`. A source line is given only where
a line-table row begins, and holds until the next one, as in DWARF: it is carried forward here.
nvdisasm's own annotations (SpillRefill) arrive as `annotations`; `other-attributes` says which
instructions are control flow.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import repeat
from typing import Any

from sassview.errors import ParseError
from sassview.ir import SassInstruction, SourceLoc
from sassview.parse.file_names import dwarf_file_name, json_with_octal_escapes_kept
from sassview.parse.sass import (
    INSTRUCTION_BYTES,
    SassFunction,
    SassListing,
    decoded_template,
    instruction_template,
    resolve_label_targets,
)
from sassview.parse.sass_text import LineInfo

SUPPORTED_SCHEMA_MAJOR = (12, 13)


def parse_sass_json(
    text: str | bytes,
    where: str = "<nvdisasm json>",
    line_info: Mapping[str, LineInfo] | None = None,
) -> SassListing:
    """Read the JSON; with `line_info` from the text listing, each instruction also gets its
    inline chain and PTX line, and CALL targets their addresses."""
    doc = load_listing_json(text, where)
    if (
        not isinstance(doc, list)
        or len(doc) < 2
        or not isinstance(doc[0], dict)
        or not isinstance(doc[1], list)
    ):
        raise ParseError(
            "not the layout nvdisasm -json writes ([header, functions, files])",
            where=where,
            hint="was it written by `nvdisasm -c -json`?",
        )
    header: dict[str, Any] = doc[0]
    schema = _schema(header, where)
    files = _files(doc[2] if len(doc) > 2 and isinstance(doc[2], dict) else {}, where)
    functions = _merge_subroutines(
        [
            _function(f, files, f"{where}: function #{i}", line_info or {})
            for i, f in enumerate(doc[1])
        ]
    )
    if line_info:
        functions = tuple(_with_labels(f, line_info.get(f.name)) for f in functions)
    sm = header.get("SM", {}).get("version", {}) if isinstance(header.get("SM"), dict) else {}
    arch = (
        f"sm_{sm['major']}{sm['minor']}"
        if isinstance(sm, dict) and "major" in sm and "minor" in sm
        else ""
    )
    return SassListing(functions, arch, str(header.get("Producer", "")), schema)


def load_listing_json(text: str | bytes, where: str) -> Any:
    """The document; where it is not valid JSON only for the octal escapes of a non-ASCII file
    name (nvdisasm copies line-table names unescaped), the document with those kept as text."""
    try:
        return json.loads(text)
    except (ValueError, UnicodeDecodeError) as exc:
        error = exc
    try:
        decoded = text.decode() if isinstance(text, bytes) else text
        repaired = json_with_octal_escapes_kept(decoded)
        if repaired != decoded:
            return json.loads(repaired)
    except (ValueError, UnicodeDecodeError):
        pass
    raise ParseError(
        f"not valid JSON ({error})", where=where, hint="was it written by `nvdisasm -json`?"
    ) from None


def _merge_subroutines(functions: list[SassFunction]) -> tuple[SassFunction, ...]:
    """Fold `$kernel$helper` entries into `kernel`, as one .text section holds both.

    nvdisasm 13.1 lists a non-inlined callee that ptxas placed inside a kernel's section as a
    function of its own (with a non-zero start); 13.5 lists it inside the kernel. Folding gives
    both the 13.5 shape, and keeps the callee's start as a label for CALL targets.
    """
    out: list[SassFunction] = []
    for func in functions:
        parent = out[-1] if out else None
        if parent is not None and func.name.startswith(f"${parent.name}$"):
            start = func.instructions[0].address if func.instructions else 0
            labels = {**parent.labels, func.name: start}
            out[-1] = SassFunction(parent.name, parent.instructions + func.instructions, labels)
        else:
            out.append(func)
    return tuple(out)


def _schema(header: dict[str, Any], where: str) -> tuple[int, int] | None:
    version = header.get("SchemaVersion")
    if not isinstance(version, dict):
        return None
    major, minor = version.get("major"), version.get("minor")
    if type(major) is not int or type(minor) is not int:
        return None  # found by fuzzing: 1e999 parses as float infinity
    if major not in SUPPORTED_SCHEMA_MAJOR and major > max(SUPPORTED_SCHEMA_MAJOR):
        raise ParseError(
            f"nvdisasm JSON schema {major}.{minor} is newer than this sassview understands "
            f"(up to {max(SUPPORTED_SCHEMA_MAJOR)}.x)",
            where=where,
            hint="upgrade sassview, or point SASSVIEW_NVDISASM at an nvdisasm from CUDA 13",
        )
    return major, minor


def _files(table: dict[str, Any], where: str) -> dict[int, str]:
    dirs = table.get("directories", [])
    out: dict[int, str] = {}
    for i, entry in enumerate(table.get("files", [])):
        if not isinstance(entry, dict) or "file" not in entry:
            raise ParseError(f"file entry #{i} has no name", where=where)
        name = str(entry["file"])
        idx = entry.get("dir-idx")
        if isinstance(idx, int) and 0 <= idx < len(dirs) and not name.startswith("/"):
            name = f"{dirs[idx]}/{name}"
        out[i] = dwarf_file_name(name)
    return out


def _with_labels(func: SassFunction, info: LineInfo | None) -> SassFunction:
    if info is None or not info.labels:
        return func
    if info.jump_tables:
        func = SassFunction(
            func.name,
            tuple(
                i._replace(targets=info.jump_targets(i.address))
                if i.address in info.jump_tables
                else i
                for i in func.instructions
            ),
            func.labels,
        )
    return resolve_label_targets(
        SassFunction(func.name, func.instructions, {**info.labels, **func.labels})
    )


def _function(
    func: Any, files: dict[int, str], where: str, line_info: Mapping[str, LineInfo]
) -> SassFunction:
    if not isinstance(func, dict) or "function-name" not in func or "sass-instructions" not in func:
        raise ParseError("a function entry lacks its name or instructions", where=where)
    name = str(func["function-name"])
    start = func.get("start", 0)
    raw = func["sass-instructions"]
    if not isinstance(start, int) or not isinstance(raw, list):
        raise ParseError(f"function {name}: bad start or instruction list", where=where)
    # A `$kernel$helper` entry (nvdisasm 13.1) lives in its kernel's section and line info.
    info = line_info.get(name) or line_info.get(
        name.split("$")[1] if name.startswith("$") and name.count("$") >= 2 else ""
    )
    chains = info.sources if info else {}
    ptx_lines = info.ptx_lines if info else {}
    starts = info.starts if info else frozenset()
    instructions = _read_in_bulk(raw, start, files, chains, ptx_lines, starts)
    if instructions is None:
        instructions = _read_one_by_one(raw, start, files, chains, ptx_lines, starts, name, where)
    return SassFunction(name, instructions)


_new = tuple.__new__  # SassInstruction's own __new__ is a Python frame: 10^5 of them add up


def _read_in_bulk(
    raw: list[Any],
    start: int,
    files: dict[int, str],
    chains: Mapping[int, SourceLoc],
    ptx_lines: Mapping[int, int],
    starts: frozenset[int],
) -> tuple[SassInstruction, ...] | None:
    """The instructions of one function, read field by field over all entries at once (C-level
    map and zip instead of 10^5 turns of a Python loop); None when anything is unusual (an
    entry not a dict, an odd field, an error of any kind) for `_read_one_by_one` to read or
    reject, so that the result, or the error, is always that one's."""
    try:
        if not raw or set(map(type, raw)) != {dict}:
            return None if raw else ()
        opcodes: list[Any] = list(map(dict.get, raw, repeat("opcode")))
        operand_texts = list(map(dict.get, raw, repeat("operands"), repeat("")))
        if set(map(type, opcodes)) != {str} or set(map(type, operand_texts)) != {str}:
            return None
        lines = list(map(dict.get, raw, repeat("source-line")))
        addresses = range(start, start + INSTRUCTION_BYTES * len(raw), INSTRUCTION_BYTES)
        file_ids = list(map(dict.get, raw, repeat("source-file-id")))
        text_chains = map(chains.get, addresses) if chains else repeat(None)
        breaks = map(starts.__contains__, addresses) if starts else repeat(False)
        sources = _sources(lines, file_ids, text_chains, breaks, files)
        if sources is None:
            return None
        predicates, marks, flows = _rare_fields(raw, lines)
        if any(op[:6] == "LDGSTS" for op in set(opcodes)):
            operand_texts = [
                _ldgsts_in_order(text) if _is_13_1_ldgsts(op, text) else text
                for op, text in zip(opcodes, operand_texts, strict=True)
            ]
        templates = [
            decoded_template(key) or instruction_template(*key)
            for key in zip(predicates, opcodes, operand_texts, strict=True)
        ]
    except Exception:  # noqa: BLE001 - `_read_one_by_one` raises it, or the one before it
        return None
    ops, mods, operands, guards, negated, targets, _ = zip(*templates, strict=True)
    n = len(raw)
    return tuple(
        map(
            _new,
            repeat(SassInstruction),
            zip(
                addresses,
                ops,
                mods,
                operands,
                guards,
                negated,
                sources,
                map(ptx_lines.get, addresses) if ptx_lines else [None] * n,
                marks,
                flows,
                targets,
                [()] * n,
                strict=True,
            ),
        )
    )


def _sources(
    lines: list[Any],
    file_ids: list[Any],
    chains: Iterable[SourceLoc | None],
    breaks: Iterable[bool],
    files: dict[int, str],
) -> list[SourceLoc | None] | None:
    """Each entry's source line. The JSON gives one where a line-table row begins, held until
    the next one, as in DWARF, but not across a function's start (`breaks`: ptxas' own
    subroutines have no rows, see parse/sass_text); the text's chain is richer (inline
    frames), and taken when it names the same line, or when the JSON has none (nvdisasm 13.1
    ignores -g in JSON mode).
    None if an entry names an unknown file. (`_read_one_by_one` ignores the line of an entry
    of two keys; with an opcode, that entry has no source-file-id: rejected here too.)"""
    out: list[SourceLoc | None] = []
    locs: dict[tuple[Any, Any], SourceLoc] = {}
    loc: SourceLoc | None = None
    # chains and breaks may repeat
    for line, file_id, chain, cut in zip(lines, file_ids, chains, breaks, strict=False):
        if cut:
            loc = None
        if line is not None:
            loc = locs.get((file_id, line))
            if loc is None:
                if file_id not in files or type(line) is not int:
                    return None
                loc = locs[(file_id, line)] = _new(SourceLoc, (files[file_id], line, 0, None))
        if chain is not None and (loc is None or (chain[1] == loc[1] and chain[0] == loc[0])):
            out.append(chain)
        else:
            out.append(loc)
    return out


def _rare_fields(
    raw: list[dict[str, Any]], lines: list[Any]
) -> tuple[list[Any], list[tuple[str, ...]], list[bool]]:
    """Predicates, marks and control-flow flags. Most entries are {opcode, operands}, or those
    and a source line: only the others are asked for the rarer keys."""
    n = len(raw)
    predicates: list[Any] = [""] * n
    marks: list[tuple[str, ...]] = [()] * n
    flows = [False] * n  # no other-attributes: not control flow, as the JSON says
    for i, (ins, line) in enumerate(zip(raw, lines, strict=True)):
        if len(ins) > (2 if line is None else 4) or "operands" not in ins:
            predicates[i], marks[i], flows[i] = _extras(ins)
    return predicates, marks, flows


def _extras(ins: dict[str, Any]) -> tuple[Any, tuple[str, ...], bool]:
    """An entry's predicate, nvdisasm's annotations (SpillRefill) and control-flow flag."""
    attrs = ins.get("other-attributes")
    notes = ins.get("annotations")
    marks: tuple[str, ...] = ()
    if notes:
        marks = tuple(str(a.get("info", "")) for a in notes if isinstance(a, dict))
    flow = attrs.get("control-flow") == "True" if isinstance(attrs, dict) else False
    return ins.get("predicate", ""), marks, flow


def _is_13_1_ldgsts(opcode: str, operands: str) -> bool:
    return opcode[:6] == "LDGSTS" and operands[:5] == "desc[" and operands[-1:] == "]"


def _read_one_by_one(
    raw: list[Any],
    start: int,
    files: dict[int, str],
    chains: Mapping[int, SourceLoc],
    ptx_lines: Mapping[int, int],
    starts: frozenset[int],
    name: str,
    where: str,
) -> tuple[SassInstruction, ...]:
    """The reader that says what is wrong, at the first entry where something is: used when
    `_read_in_bulk` finds anything unusual, and the definition of what that one returns."""
    instructions: list[SassInstruction] = []
    locs: dict[tuple[int, int], SourceLoc] = {}
    loc: SourceLoc | None = None
    address = start - INSTRUCTION_BYTES
    for i, ins in enumerate(raw):
        address += INSTRUCTION_BYTES
        try:
            opcode = ins["opcode"]
            get = ins.get
            size = len(ins)
        except (TypeError, KeyError, IndexError):
            opcode = None
        if type(opcode) is not str:
            raise ParseError(f"function {name}: instruction #{i} has no opcode", where=where)
        operands = get("operands", "")
        if type(operands) is not str:
            raise ParseError(
                f"function {name}: instruction #{i}: operands are not text", where=where
            )
        predicate, flow = "", False  # no other-attributes: not control flow, as the JSON says
        marks: tuple[str, ...] = ()
        line = get("source-line") if size > 2 else None
        if address in starts:
            loc = None  # no row holds across a function's start
        if line is not None:
            file_id = get("source-file-id")
            loc = locs.get((file_id, line))
            if loc is None:
                if file_id not in files or type(line) is not int:
                    raise ParseError(
                        f"function {name}: instruction #{i} names unknown file #{file_id}",
                        where=where,
                    )
                loc = locs[(file_id, line)] = SourceLoc(files[file_id], line)
        if size > (4 if line is not None else 2) or "operands" not in ins:
            predicate, marks, flow = _extras(ins)
        if _is_13_1_ldgsts(opcode, operands):
            operands = _ldgsts_in_order(operands)
        source = loc
        chain = chains.get(address)
        if chain is not None and (loc is None or (chain[1] == loc[1] and chain[0] == loc[0])):
            source = chain
        try:
            op, mods, ops, guard, negated, target, _ = instruction_template(
                predicate, opcode, operands
            )
        except (ValueError, IndexError, AttributeError, TypeError) as exc:
            raise ParseError(f"function {name}: instruction #{i}: {exc}", where=where) from None
        instructions.append(
            SassInstruction(
                address,
                op,
                mods,
                ops,
                guard,
                negated,
                source,
                ptx_lines.get(address),
                marks,
                flow,
                target,
            )
        )
    return tuple(instructions)


def _ldgsts_in_order(operands: str) -> str:
    """nvdisasm 13.1's JSON prints LDGSTS as "desc[UR6][R4.64][R3]": source before destination,
    with no comma. Its text form, and 13.5's JSON, print "[R3],desc[UR6][R4.64]"; use that order."""
    from sassview.parse.sass_operands import split_operands

    parts = split_operands(operands)
    if len(parts) == 2 and parts[1].startswith("[") and not parts[0].startswith("["):
        return f"{parts[1]},{parts[0]}"
    return operands
