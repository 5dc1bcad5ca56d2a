"""The SASS and PTX lexers read every listing sassview records without an Error token."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Error, Keyword, Name, Number, _TokenType

from sassview.lexers import NvPtxLexer, NvSassLexer

TESTS = Path(__file__).parent
ADDRESS = "/*0000*/"
SASS_LISTINGS = sorted(
    p for p in TESTS.rglob("*.txt") if ADDRESS in p.read_text(encoding="utf-8", errors="replace")
)
PTX_LISTINGS = sorted(TESTS.rglob("*.ptx"))


def _rel(p: Path) -> str:
    return str(p.relative_to(TESTS))


def _errors(lexer: object, text: str) -> list[str]:
    tokens = list(lexer.get_tokens(text))  # type: ignore[attr-defined]
    out = []
    for i, (tok, value) in enumerate(tokens):
        if tok in Error:
            context = "".join(v for _, v in tokens[max(0, i - 6) : i + 4])
            out.append(f"{value!r} in {context!r}")
    return out


def test_the_corpus_has_listings_of_every_kind() -> None:
    names = {p.name for p in SASS_LISTINGS}
    assert {"sass.txt", "cuobjdump-sass.txt", "plr.txt"} <= names
    assert any(p.parent.name == "ptx" for p in PTX_LISTINGS)
    assert len(PTX_LISTINGS) >= 20 and len(SASS_LISTINGS) >= 60


@pytest.mark.parametrize("path", SASS_LISTINGS, ids=_rel)
def test_every_sass_listing_lexes_without_errors(path: Path) -> None:
    assert _errors(NvSassLexer(), path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", PTX_LISTINGS, ids=_rel)
def test_every_ptx_listing_lexes_without_errors(path: Path) -> None:
    assert _errors(NvPtxLexer(), path.read_text(encoding="utf-8")) == []


def _kinds(lexer: object, text: str) -> list[tuple[_TokenType, str]]:
    return [(t, v) for _, t, v in lexer.get_tokens_unprocessed(text) if v.strip()]  # type: ignore[attr-defined]


def test_a_sass_instruction_splits_into_guard_opcode_modifiers_and_operands() -> None:
    toks = _kinds(NvSassLexer(), "/*0090*/ @!P0 LDG.E.128.CONSTANT R4, desc[UR6][R2.64+0x10] ;")
    assert toks[0] == (Comment.Special, "/*0090*/")
    assert (Name.Builtin, "P0") in toks
    assert (Keyword, "LDG") in toks and (Name.Attribute, ".E.128.CONSTANT") in toks
    assert (Name.Variable, "R4") in toks and (Name.Variable, "UR6") in toks
    assert (Keyword.Pseudo, "desc") in toks and (Number.Hex, "+0x10") in toks


def test_sass_comments_marks_and_labels_have_their_own_tokens() -> None:
    lexer = NvSassLexer()
    spill = _kinds(lexer, 'STL [R1+0x8c], R9   (*"SpillRefill"*);')
    assert (Name.Decorator, '(*"SpillRefill"*)') in spill
    info = _kinds(lexer, '\t//## File "/k.cu", line 9 inlined at "/k.cu", line 20\n')
    assert info == [(Comment.Special, '//## File "/k.cu", line 9 inlined at "/k.cu", line 20')]
    branch = _kinds(lexer, "@!P0 BRA `(.L_x_0) ;")
    assert (Name.Label, ".L_x_0") in branch
    assert _kinds(lexer, ".L_x_3:")[0] == (Name.Label, ".L_x_3")
    enc = _kinds(lexer, "/*0010*/ S2R R3, SR_TID.X ;  /* 0x0000000000037919 */")
    assert (Name.Builtin, "SR_TID") in enc and enc[-1][0] in Comment


def test_ptx_guards_and_scoped_qualifiers_are_not_errors() -> None:
    toks = _kinds(NvPtxLexer(), "\t@!%p1 bra $L__BB0_2;\n\tfence.proxy.async.shared::cta;\n")
    assert toks[:3] == [(toks[0][0], "@"), (toks[1][0], "!"), (Name.Variable, "%p1")]
    assert all(t not in Error for t, _ in toks)


def test_the_lexers_are_registered_with_pygments_by_name() -> None:
    assert isinstance(get_lexer_by_name("nvsass"), NvSassLexer)
    assert isinstance(get_lexer_by_name("cuda-sass"), NvSassLexer)
    assert isinstance(get_lexer_by_name("nvptx"), NvPtxLexer)
    assert get_lexer_by_name("sass").name != NvSassLexer.name  # Pygments' CSS Sass stays


def test_mlir_lexer_reads_triton_stages_and_tells_ops_values_and_locations_apart() -> None:
    from sassview.lexers import MlirLexer

    stages = sorted((TESTS / "data" / "stages").glob("*.tt*ir"))
    assert len(stages) >= 4
    for path in stages:
        assert _errors(MlirLexer(), path.read_text()) == [], _rel(path)
    line = "    %acc = tt.dot %a, %b, %acc_54 : tensor<64x32xf16, #blocked> loc(#loc31)"
    kinds = {v: t for t, v in MlirLexer().get_tokens(line) if v.strip()}
    assert kinds["tt.dot"] in Keyword and kinds["%acc"] in Name.Variable
    assert kinds["#blocked"] in Name.Decorator and kinds["#loc31"] in Comment
