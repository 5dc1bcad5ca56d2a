"""The JSON and text SASS readers, on listings recorded from real cubins (no tools needed)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from conftest import corpus_dirs, corpus_id

from sassview.errors import ParseError
from sassview.ir import OperandKind, Register
from sassview.parse.sass import resolve_label_targets
from sassview.parse.sass_json import parse_sass_json
from sassview.parse.sass_operands import parse_operand, split_operands
from sassview.parse.sass_text import parse_sass_text, read_line_info

LISTINGS = [(d, v) for d in corpus_dirs() for v in ("", "-13.1") if (d / f"sass{v}.json").exists()]


def _key(ins, with_source: bool = True):  # what both readers must agree on
    src = (ins.source.file, ins.source.line) if ins.source and with_source else None
    return (
        ins.address,
        ins.opcode,
        ins.modifiers,
        ins.operands,
        ins.guard,
        ins.guard_negated,
        ins.target,
        ins.control_flow,
        src,
    )


@pytest.mark.parametrize(
    ("directory", "version"), LISTINGS, ids=[corpus_id(d) + v for d, v in LISTINGS]
)
def test_json_and_text_readers_agree_instruction_by_instruction(
    directory: Path, version: str
) -> None:
    js = parse_sass_json((directory / f"sass{version}.json").read_text())
    tx = parse_sass_text((directory / f"sass{version}.txt").read_text())
    assert [f.name for f in js.functions] == [f.name for f in tx.functions]
    for fj, ft in zip(js.functions, tx.functions, strict=True):
        # JSON has no label table; the text listing's resolves CALL targets for both.
        fj = resolve_label_targets(dataclasses.replace(fj, labels=ft.labels))
        assert len(fj.instructions) == len(ft.instructions) > 0
        # nvdisasm 13.1 ignores -g in JSON mode: its JSON has no line info to compare.
        lines = any(i.source for i in fj.instructions)
        assert lines or version == "-13.1"
        for a, b in zip(fj.instructions, ft.instructions, strict=True):
            assert _key(a, lines) == _key(b, lines), (
                f"{fj.name} /*{a.address:04x}*/: {a.text} vs {b.text}"
            )
        # The -gi/-gp text gives a PTX line to (nearly) every instruction with code behind it.
        assert any(i.ptx_line for i in ft.instructions)


def _listing(case: str, arch: str, fmt: str = "json"):
    from conftest import CORPUS

    text = (CORPUS / case / arch / f"sass.{fmt}").read_text()
    return parse_sass_json(text) if fmt == "json" else parse_sass_text(text)


def test_float4_loads_are_128_bit_and_scalar_loads_are_not() -> None:
    listing = _listing("vecadd", "sm_90a")
    f4 = [i.mnemonic for i in listing.function("add_f4").instructions if i.opcode == "LDG"]
    scalar = [i.mnemonic for i in listing.function("add_scalar").instructions if i.opcode == "LDG"]
    assert f4 and all("128" in m.split(".") for m in f4)
    assert scalar and not any("128" in m.split(".") for m in scalar)


def test_spill_stores_carry_nvdisasm_spillrefill_mark() -> None:
    listing = _listing("spill", "sm_80")
    spill = listing.function("_Z5spillPKfPfi")
    marked = [i for i in spill.instructions if "SpillRefill" in i.marks]
    assert marked and {i.opcode for i in marked} <= {"STL", "LDL"}
    local = listing.function("_Z11local_arrayPKiPf")
    assert not any(i.marks for i in local.instructions)


def test_wgmma_decodes_shape_and_types() -> None:
    ins = next(
        i for i in _listing("wgmma", "sm_90a").functions[0].instructions if i.opcode == "HGMMA"
    )
    assert ins.modifiers == ("64x8x16", "F32", "BF16")
    assert ins.operands[1].kind is OperandKind.MEMORY and ins.operands[1].text == "gdesc[UR4]"


def test_text_reader_keeps_inline_chain_innermost_first() -> None:
    listing = _listing("bounds", "sm_90a", "txt")
    chains = [
        i.source for i in listing.functions[0].instructions if i.source and i.source.inlined_at
    ]
    deepest = max(chains, key=lambda loc: len(list(loc.frames())))
    lines = [f.line for f in deepest.frames()]
    assert lines == [3, 4, 8]  # inner() inlined into outer() inlined into bounded()


def test_branch_targets_resolve_to_addresses_inside_the_function() -> None:
    for fn in _listing("tiled", "sm_90a", "txt").functions:
        size = len(fn.instructions) * 16
        branches = [i for i in fn.instructions if i.opcode == "BRA"]
        assert branches and all(i.target is not None and 0 <= i.target < size for i in branches)


def test_call_to_noinline_function_resolves_through_labels() -> None:
    fn = _listing("bounds", "sm_90a", "txt").functions[0]
    call = next(i for i in fn.instructions if i.opcode == "CALL")
    assert call.target is not None and fn.instructions[call.target // 16].address == call.target


@pytest.mark.parametrize(
    ("text", "kind", "regs", "extra"),
    [
        ("R4", OperandKind.REGISTER, [Register("R", 4)], {}),
        ("RZ", OperandKind.REGISTER, [Register("R", None)], {}),
        ("!PT", OperandKind.REGISTER, [Register("P", None)], {"negated": True}),
        ("-|R2|", OperandKind.REGISTER, [Register("R", 2)], {"negated": True, "absolute": True}),
        ("R6.reuse", OperandKind.REGISTER, [Register("R", 6)], {"reuse": True}),
        ("R4.reuse.H0_H0", OperandKind.REGISTER, [Register("R", 4)], {"reuse": True}),
        ("UR5", OperandKind.REGISTER, [Register("UR", 5)], {}),
        ("0x3a0", OperandKind.IMMEDIATE, [], {"value": 0x3A0}),
        ("-0x8", OperandKind.IMMEDIATE, [], {"value": -8}),
        ("0.15915493667125701904", OperandKind.IMMEDIATE, [], {"value": 0.15915493667125701904}),
        ("-INF", OperandKind.IMMEDIATE, [], {"value": float("-inf")}),
        ("c[0x0][0x28]", OperandKind.CONSTANT, [], {"bank": 0, "offset": 0x28}),
        ("[R1+0x8c]", OperandKind.MEMORY, [Register("R", 1)], {"offset": 0x8C}),
        (
            "desc[UR4][R2.64+0x10]",
            OperandKind.MEMORY,
            [Register("UR", 4), Register("R", 2, 2)],
            {"offset": 0x10},
        ),
        ("[R3+UR5-0x4]", OperandKind.MEMORY, [Register("R", 3), Register("UR", 5)], {"offset": -4}),
        ("SR_TID.X", OperandKind.SPECIAL, [], {}),
        ("gsb0", OperandKind.OTHER, [], {}),
    ],
)
def test_operand_parsing(text: str, kind: OperandKind, regs: list[Register], extra: dict) -> None:
    op = parse_operand(text)
    assert op.kind is kind
    assert list(op.registers) == regs
    for name, value in extra.items():
        assert getattr(op, name) == value


def test_operand_split_respects_brackets() -> None:
    assert split_operands("R24, gdesc[UR4], RZ, !UPT, gsb0") == [
        "R24",
        "gdesc[UR4]",
        "RZ",
        "!UPT",
        "gsb0",
    ]
    assert split_operands("desc[UR4][R2.64+0x10],R8") == ["desc[UR4][R2.64+0x10]", "R8"]
    # nvdisasm's JSON runs LDGSTS's two addresses together.
    assert split_operands("[R5][R6.64]") == ["[R5]", "[R6.64]"]
    assert split_operands("[R3],desc[UR8][R4.64]") == ["[R3]", "desc[UR8][R4.64]"]


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "not json",
        '{"a": 1}',
        "[1, 2]",
        '[{}, [{"function-name": "k"}]]',
        '[{}, [{"function-name": "k", "sass-instructions": [{"operands": "R1"}]}]]',
    ],
)
def test_json_reader_rejects_malformed_input_with_parse_error(bad: str) -> None:
    with pytest.raises(ParseError):
        parse_sass_json(bad)


def test_json_reader_refuses_a_newer_schema_instead_of_guessing() -> None:
    with pytest.raises(ParseError, match="newer than this sassview"):
        parse_sass_json('[{"SchemaVersion": {"major": 99, "minor": 0}}, [], {}]')


def test_text_reader_rejects_instruction_outside_a_function() -> None:
    with pytest.raises(ParseError, match="before any function"):
        parse_sass_text("        /*0000*/                   MOV R1, c[0x0][0x28] ;\n")


@pytest.mark.parametrize(
    "annotation", ['//## File "/a/k.cu", line {n}', '//## File ".nv_debug_ptx_txt", line {n}']
)
def test_text_reader_rejects_a_line_number_no_int_can_hold(annotation: str) -> None:
    """Found by reading the readers for speed: past 4300 digits int() raises ValueError."""
    listing = (
        '\t.section\t.text.k,"ax",@progbits\nk:\n'
        f"\t{annotation.format(n='9' * 5000)}\n"
        "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
    )
    for read in (parse_sass_text, read_line_info):
        with pytest.raises(ParseError, match="longer than any nvdisasm writes"):
            read(listing)


CUOBJDUMP = [d for d in corpus_dirs() if (d / "cuobjdump-sass.txt").exists()]


@pytest.mark.parametrize("directory", CUOBJDUMP, ids=[corpus_id(d) for d in CUOBJDUMP])
def test_cuobjdump_sass_listing_gives_the_same_instructions(directory: Path) -> None:
    js = parse_sass_json((directory / "sass.json").read_text())
    tx = parse_sass_text((directory / "sass.txt").read_text())
    cu = parse_sass_text((directory / "cuobjdump-sass.txt").read_text())
    assert cu.arch == tx.arch
    assert sorted(f.name for f in cu.functions) == sorted(f.name for f in js.functions)
    for fc in cu.functions:
        fj = resolve_label_targets(
            dataclasses.replace(js.function(fc.name), labels=tx.function(fc.name).labels)
        )
        assert len(fc.instructions) == len(fj.instructions)
        for a, b in zip(fj.instructions, fc.instructions, strict=True):
            assert (a.address, a.opcode, a.modifiers, a.guard, a.guard_negated) == (
                b.address,
                b.opcode,
                b.modifiers,
                b.guard,
                b.guard_negated,
            )
            # cuobjdump prints every code address as a number, where nvdisasm may print a symbol
            # (CALL $k$helper, RET R4, k): targets must agree, operand texts may not.
            if a.opcode in ("CALL", "RET"):
                assert a.target == b.target
            else:
                assert a.operands == b.operands, f"/*{a.address:04x}*/ {a.text} vs {b.text}"


def _recorded_json_listings() -> list[Path]:
    found = []
    for path in sorted(Path(__file__).parent.rglob("*.json")):
        if path.stat().st_size < 200 or "sass" not in path.name:
            continue
        found.append(path)
    return found


def test_the_text_reader_marks_control_flow_as_every_recorded_json_listing_does() -> None:
    """Where no spill can be marked only the text listing is read (disasm/forms.py): its
    control-flow flags must be the JSON's, opcode by opcode (ELECT was missed once)."""
    from sassview.parse.sass_operands import CONTROL_FLOW

    marked: dict[str, set[bool]] = {}
    for path in _recorded_json_listings():
        for function in parse_sass_json(path.read_text(), where=str(path)).functions:
            for ins in function.instructions:
                marked.setdefault(ins.opcode, set()).add(ins.control_flow)
    assert "ELECT" in marked and "BRA" in marked  # the recordings hold both kinds
    wrong = {op: flags for op, flags in marked.items() if flags != {op in CONTROL_FLOW}}
    assert not wrong
