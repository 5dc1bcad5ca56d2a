"""The source pane's lexing: lines read far ahead come from a window lexed near them, checked
against the lex from the file's start (sassview.tui.lexing); the findings panel's heights
counted from the prompts' text (sassview.tui.widgets.findings)."""

from __future__ import annotations

import pytest
from pygments.token import Comment
from textual.content import Content

from sassview.analyses import Annotation, Severity
from sassview.tui.lexing import FAR, LexedLines, lexer_for
from sassview.tui.state import FindingView
from sassview.tui.widgets.findings import FindingPrompt, finding_prompt


def _whole(filename: str, text: str) -> list[list[tuple[object, str]]]:
    """The file lexed in one pass, split into lines as the pane reads them."""
    lines: list[list[tuple[object, str]]] = [[]]
    for _, ttype, value in lexer_for(filename).get_tokens_unprocessed(text):
        for i, part in enumerate(value.expandtabs(4).split("\n")):
            if i:
                lines.append([])
            if part:
                lines[-1].append((ttype, part))
    return lines


def _kernels(count: int) -> str:
    return "".join(
        f"__global__ void k{i}(float* p) {{\n  int t = threadIdx.x;\n  p[t] = {i}.0f; // k{i}\n}}\n"
        for i in range(count)
    )


def _drain(lexed: LexedLines) -> bool:
    """Run the background lex to the end; whether any window was found wrong."""
    wrong = False
    while not lexed.done:
        wrong |= lexed.advance(1.0)
    return wrong


def test_a_line_far_ahead_is_lexed_near_it_and_agrees_with_the_whole_file() -> None:
    text = _kernels(3000)  # 12,000 lines
    whole = _whole("k.cu", text)
    lexed = LexedLines("k.cu", text)
    row = 11_002
    assert lexed.line(row) == whole[row]
    assert len(lexed._lines) < FAR  # the head did not lex its way there
    for r in range(row - 30, row + 60):  # the screen around it, read from the window
        assert lexed.line(r) == whole[r]
    assert lexed.line(len(whole) + 5000) == []  # past the end: nothing, from a last window
    assert not _drain(lexed)  # the head reached the windows: every line they served agrees
    assert [lexed.line(r) for r in range(len(whole))] == whole


def test_a_window_begun_inside_a_block_comment_is_caught_and_the_truth_read() -> None:
    """The window's guess (the lexer's first state) is wrong inside a comment of 2,000 lines:
    its lines are code there; the head's lex finds it out and serves the comment."""
    body = "".join(f"   int x{i} = {i};\n" for i in range(2000))
    text = _kernels(200) + "/*\n" + body + "*/\n" + _kernels(10)
    whole = _whole("k.cu", text)
    lexed = LexedLines("k.cu", text)
    row = 800 + 1 + 1500  # inside the comment
    assert all(t in Comment for t, _ in whole[row])
    guess = lexed.line(row)
    assert guess != whole[row]  # the window read it as code (what the check is for)
    assert _drain(lexed)  # told: the pane repaints
    assert lexed.line(row) == whole[row]


@pytest.mark.parametrize("width", [20, 47, 80, 156, 400])
def test_a_finding_prompt_is_as_high_as_its_content(width: int) -> None:
    hint = "load and store float4/int4 (or float2) per thread where the data is 16-byte aligned"
    for message, hint_text in [
        ("lines 4093-4099: global accesses at most 32 bits wide (7 loads)", hint),
        ("short", ""),
        ("a\ttab and a second line\nof message " + "word " * 30, hint * 2),
        ("x" * 300, "y" * 200),  # no spaces: folded
    ]:
        finding = FindingView(
            Annotation("narrow-access", Severity.NOTE, message, hint=hint_text), (), ()
        )
        content = Content.from_rich_text(finding_prompt(finding))
        for rules in ({}, {"text_overflow": "ellipsis"}, {"text_wrap": "nowrap"}):
            prompt = FindingPrompt(finding, None)
            assert prompt.get_height(rules, width) == content.get_height(rules, width)  # type: ignore[arg-type]
