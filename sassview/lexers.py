"""Pygments lexers for NVIDIA SASS listings and for PTX as the CUDA compilers write it.

Shared by every view that colours code: the TUI lexes one listing line at a time, the exporters
whole files. Registered as Pygments plugins (`[project.entry-points."pygments.lexers"]`), so
`pygmentize -l nvsass` and `get_lexer_by_name("nvsass")` find them once sassview is installed.

Pygments already has a lexer named `sass` (the CSS preprocessor), hence `nvsass`. Pygments'
own PTX lexer is reused: `NvPtxLexer` only adds what it trips on in real compiler output —
predicate guards (`@%p1`, `@!%p2`), `::` qualifiers (`.shared::cta`, `mbarrier::complete_tx`),
`/* */` comments and a few operators — so both read every listing sassview records without an
Error token (tests/test_lexers.py checks the whole corpus).
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include, inherit
from pygments.lexers.ptx import PtxLexer
from pygments.token import (
    Comment,
    Generic,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

__all__ = ["MlirLexer", "NvPtxLexer", "NvSassLexer"]

# A symbol as nvdisasm prints it: mangled names, `$outer$inner` subroutines, `.L_x_3` labels,
# `.text.name` section symbols.
_SYMBOL = r"[A-Za-z_.$][\w.$]*"
_HEX = r"0x[0-9a-fA-F]+"
_FLOAT = r"(?:\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)"


class NvSassLexer(RegexLexer):  # type: ignore[misc]  # pygments is untyped
    """NVIDIA SASS as nvdisasm and cuobjdump print it (sm_75 ... sm_120).

    Reads whole listings — section directives, labels, `//## File "...", line N` line-info
    comments, `/* 0x... */` encodings, nvdisasm's register-liveness columns — as well as a bare
    instruction (`@!P0 LDG.E.128 R4, desc[UR6][R2.64] ;`), which is how the TUI lexes a row.
    Tokens: opcode Keyword, its modifiers Name.Attribute, registers Name.Variable, the zero and
    true registers and special registers Name.Builtin, immediates Number, constant banks and
    memory-descriptor prefixes (`c`, `cx`, `desc`, `gdesc`, `tmem`) Keyword.Pseudo, branch
    targets Name.Label, nvdisasm's `(*"SpillRefill"*)` marks Name.Decorator, and every comment
    (addresses `/*0040*/` included, which nvdisasm writes as comments) a Comment token.
    """

    name = "NVIDIA SASS"
    aliases = ["nvsass", "cuda-sass"]
    filenames = ["*.sass"]
    mimetypes = ["text/x-nvsass"]
    url = "https://docs.nvidia.com/cuda/cuda-binary-utilities/index.html#instruction-set-reference"

    tokens = {
        "root": [
            include("space"),
            (r"/\*[0-9a-fA-F]{4,}\*/", Comment.Special, "instruction"),  # the address
            include("comments"),
            # cuobjdump's headers: "code for sm_90a", "Function : name", "arch = sm_90a".
            (r"(code for)(\s+)(\w+)", bygroups(Generic.Heading, Whitespace, Name.Constant)),
            (r"(Function)(\s*:\s*)(\S+)", bygroups(Generic.Heading, Punctuation, Name.Function)),
            (
                r"(Fatbin)(\s+)(\w+)(\s+)(code)(:)",
                bygroups(
                    Generic.Heading,
                    Whitespace,
                    Name.Constant,
                    Whitespace,
                    Generic.Heading,
                    Punctuation,
                ),
            ),
            (r"(\w[\w ]*?)(\s*=\s*)([^\n]*)", bygroups(Name.Attribute, Operator, String)),
            (r"\.{3,}|={3,}", Comment),
            (r"(" + _SYMBOL + r")(:)", bygroups(Name.Label, Punctuation)),
            (r"\.[A-Za-z_]\w*", Keyword.Reserved, "directive"),
            # A bare instruction with no address in front (one row of the TUI, a test string).
            (r"(?=@|[A-Z])", Text, "instruction"),
        ],
        "space": [
            (r"\n", Whitespace),
            (r"[ \t\r]+", Whitespace),
        ],
        "comments": [
            (r"//##[^\n]*", Comment.Special),  # nvdisasm -g line info
            (r"//[^\n]*", Comment.Single),
            (r"/\*.*?\*/", Comment.Multiline),  # encodings: /* 0x000fe400078e00ff */
            (r'\(\*"[^\n]*?"\*\)', Name.Decorator),  # (*"SpillRefill"*), (*"BRANCH_TARGETS ..."*)
        ],
        "directive": [
            (r"\n", Whitespace, "#pop"),
            (r"[ \t\r]+", Whitespace),
            include("comments"),
            (r'@?"[^"\n]*"', String),
            (_HEX, Number.Hex),
            (r"\d+", Number.Integer),
            (r"@\w+", Name.Attribute),  # @function, @object, @progbits
            (_SYMBOL, Name),
            (r"[-+]", Operator),
            (r"[,()]", Punctuation),
        ],
        "instruction": [
            (r"[ \t\r]+", Whitespace),
            (r"\n", Whitespace, "#pop"),
            (r"(@)(!?)(U?P(?:T|\d+))", bygroups(Operator, Operator, Name.Builtin)),
            (
                r"([A-Z][A-Z0-9_]*)((?:\.[A-Za-z0-9_]+)*)",
                bygroups(Keyword, Name.Attribute),
                ("#pop", "operands"),
            ),
            include("comments"),
        ],
        "operands": [
            (r";", Punctuation, "#pop"),
            (r"\n", Whitespace, "#pop"),
            (r"[ \t\r]+", Whitespace),
            (r"\(\*.*?\*\)", Name.Decorator),
            (r"/\*.*?\*/", Comment.Multiline),
            (r"(`\()(" + _SYMBOL + r")(\))", bygroups(Punctuation, Name.Label, Punctuation)),
            (r"(?:RZ|URZ|PT|UPT|SRZ)\b", Name.Builtin),
            (r"SR_\w+", Name.Builtin),
            (r"(?:UR|UP|R|P|B)\d+", Name.Variable),
            (r"(?:cx|c|gdesc|desc|tmem)(?=\[)", Keyword.Pseudo),
            (r"\.\w+", Name.Attribute),  # R2.64, R3.reuse, SR_TID.X, R4.H1, R8.X4
            (r"[-+]?(?:INF|QNAN|NAN)\b", Number.Float),
            (r"[-+]?" + _HEX, Number.Hex),
            (r"[-+]?" + _FLOAT, Number.Float),
            (r"[-+]?\d+", Number.Integer),
            (r"(\.L_x_\d+|\$?[A-Za-z_][\w$]*)", Name),  # a label as an operand, gsb0, ...
            (r"[\[\]{}(),]", Punctuation),
            (r"[-+!~|]", Operator),
        ],
    }


class NvPtxLexer(PtxLexer):  # type: ignore[misc]
    """PTX as NVRTC, Triton and the CuTe DSL write it: Pygments' PTX lexer plus guards and `::`.

    Everything Pygments' lexer already reads is left to it; the rules added in front cover the
    constructs that made it emit Error tokens on sassview's recorded PTX.
    """

    name = "PTX (NVIDIA)"
    aliases = ["nvptx", "cuda-ptx"]
    filenames: list[str] = []  # Pygments' own lexer keeps *.ptx
    mimetypes: list[str] = []

    tokens = {
        "root": [
            (r"(@)(!?)(%?[A-Za-z_$][\w$]*)", bygroups(Operator, Operator, Name.Variable)),
            (r"/\*.*?\*/", Comment.Multiline),
            (r"//[^\n]*", Comment.Single),  # also on a last line that has no "\n"
            (r"::", Punctuation),  # .shared::cta, mbarrier::complete_tx::bytes
            (r"[a-zA-Z$._][\w$.]*(?=::)", Keyword.Pseudo),  # not a label: `.shared` of `::cta`
            (r"0[fFdD][0-9a-fA-F]{8,16}\b", Number.Float),  # 0f3F800000: a float's bits
            (r"[|&^<>?]", Operator),
            (r",", Punctuation),  # Pygments' [*+-/] takes it for an operator
            inherit,
        ],
    }


_MLIR_TYPE = r"(?:(?<=\dx)|\b)(?:[if]\d+|bf16|tf32|index|none|tensor|memref|vector|ptr)\b"
_MLIR_WORD = r"\b(?:module|attributes|func|dense|true|false|to|step|iter_args|at|unit)\b"


class MlirLexer(RegexLexer):  # type: ignore[misc]
    """MLIR as Triton prints its TTIR and TTGIR (Pygments has no MLIR lexer).

    Tokens: an op's dialect-qualified name (`tt.load`, `arith.constant`, `scf.for`) Keyword,
    SSA values (`%0`, `%acc:3`, `%arg2#1`) Name.Variable, symbols (`@matmul_kernel`)
    Name.Function, blocks (`^bb1`) Name.Label, attribute aliases (`#blocked`, `#mma`)
    Name.Decorator, types (`tensor<64x32xf16, #blocked>`'s words, `!tt.ptr`, `i32`)
    Keyword.Type, and every debug location `loc(...)` — what a stage line maps to, not what it
    does — one Comment token, so it reads dim.
    """

    name = "MLIR"
    aliases = ["mlir", "ttir", "ttgir"]
    filenames = ["*.mlir", "*.ttir", "*.ttgir"]
    mimetypes: list[str] = []

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"//[^\n]*", Comment.Single),
            (r"loc\(", Comment, "loc"),
            (r'"(?:[^"\\\n]|\\.)*"', String),
            (r"%[\w$.-]+(?:[:#]\d+)?", Name.Variable),
            (r"@[\w$.-]+|@\"(?:[^\"\\]|\\.)*\"", Name.Function),
            (r"\^[\w$.-]+", Name.Label),
            (r"#[\w$.-]+", Name.Decorator),
            (r"![\w$.-]+", Keyword.Type),
            (r"\b\d+(?:x\d+)*x(?=[a-z!])", Keyword.Type),  # a shape: 64x32x of 64x32xf16
            (_MLIR_TYPE, Keyword.Type),
            (_MLIR_WORD, Keyword.Reserved),
            (r"\b[a-z_][\w$]*(?:\.[\w$]+)+", Keyword),  # tt.load, arith.constant, ttg.local_alloc
            (r"[-+]?0x[0-9a-fA-F]+", Number.Hex),
            (r"[-+]?" + _FLOAT, Number.Float),
            (r"[-+]?\d+", Number.Integer),
            (r"[A-Za-z_][\w$]*", Name),
            (r"->|[=:,<>()\[\]{}*?]", Punctuation),
            (r"[-+]", Operator),
        ],
        "loc": [
            (r"\(", Comment, "#push"),
            (r"\)", Comment, "#pop"),
            (r'"(?:[^"\\\n]|\\.)*"', Comment),
            (r'[^()"\n]+', Comment),
        ],
    }
