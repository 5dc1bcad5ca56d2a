"""Syntax colouring for the HTML export: Pygments tokens -> escaped HTML, one string per line.

Pygments' own HtmlFormatter writes one block; the HTML view needs each line as its own element
(so a line can be hovered, linked and highlighted), and must escape every character that came
from the kernel. So tokens are split at newlines here and each piece goes through html.escape.
Class names are Pygments' short names (`k`, `c1`, `nv`), styled by html_assets/view.css, which
keeps the page's look independent of the installed Pygments' styles.
"""

from __future__ import annotations

import html

from pygments.lexer import Lexer
from pygments.token import STANDARD_TYPES, _TokenType

from sassview.memo import memoized


@memoized(8)
def lexer(name: str) -> Lexer | None:
    """A Pygments lexer by alias (nvsass and nvptx come from sassview.lexers), or None."""
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    if name == "nvsass":
        from sassview.lexers import NvSassLexer

        return NvSassLexer(stripnl=False, ensurenl=False)
    if name == "nvptx":
        from sassview.lexers import NvPtxLexer

        return NvPtxLexer(stripnl=False, ensurenl=False)
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


# Token classes the stylesheet leaves in the text colour: written without a <span>.
_PLAIN = frozenset({"", "w", "p", "n", "x", "g"})


def _css_class(token: _TokenType) -> str:
    while token not in STANDARD_TYPES and token.parent is not None:
        token = token.parent
    return str(STANDARD_TYPES.get(token, ""))


def highlight_lines(text: str, language: str) -> list[str]:
    """`text` as HTML, one escaped string per line (no trailing newline handling surprises:
    the result has exactly as many items as text.split('\\n'))."""
    lex = lexer(language)
    if lex is None:
        return [html.escape(line) for line in text.split("\n")]
    # Per line: runs of (class, text), neighbours of one class merged, so the page stays small.
    lines: list[list[tuple[str, str]]] = [[]]
    for token, value in lex.get_tokens(text):
        cls = _css_class(token)
        cls = "" if cls in _PLAIN else cls
        for i, part in enumerate(value.split("\n")):
            if i:
                lines.append([])
            if not part:
                continue
            run = lines[-1]
            if run and run[-1][0] == cls:
                run[-1] = (cls, run[-1][1] + part)
            else:
                run.append((cls, part))
    want = text.count("\n") + 1
    out = [
        "".join(f'<span class="{c}">{html.escape(t)}</span>' if c else html.escape(t) for c, t in r)
        for r in lines[:want]
    ]
    return out + [""] * (want - len(out))
