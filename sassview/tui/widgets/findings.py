"""Every finding of the kernel with its message and hint; choosing one jumps to it."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from sassview.analyses import Severity
from sassview.memo import memoized
from sassview.report.words import finding_counts
from sassview.tui.messages import FindingChosen
from sassview.tui.state import FindingView

_TAG = {Severity.WARNING: ("warn", "bold red"), Severity.NOTE: ("note", "yellow"),
        Severity.INFO: ("info", "cyan")}  # fmt: skip


def _parts(f: FindingView) -> list[tuple[str, str]]:
    """The prompt as (text, style) runs: the one wording both the text and its height read."""
    tag, style = _TAG[f.severity]
    parts = [(f"{tag:<4} ", style), (f"{f.annotation.kind}: ", "bold"), (f.annotation.message, "")]
    if f.annotation.hint:
        parts.append((f"\n     hint: {f.annotation.hint}", "dim"))
    return parts


def finding_prompt(f: FindingView) -> Text:
    text = Text(no_wrap=False)
    for part, style in _parts(f):
        text.append(part, style=style or None)
    return text


class FindingPrompt(Visual):
    """A finding's prompt, made into Content only when it is painted. The list needs every
    prompt's height to lay itself out (1,027 findings on a 65k-instruction kernel: wrapping
    each took ~0.4 s of its first paint), and a height is the sum of its lines' heights: a
    line that fits the width is one row, a longer one is wrapped by Content itself, once per
    distinct text and width (the hints repeat)."""

    def __init__(self, finding: FindingView, console: Console | None) -> None:
        self._finding = finding
        self._console = console
        self._lines = "".join(text for text, _ in _parts(finding)).split("\n")
        self._content: Content | None = None

    @property
    def content(self) -> Content:
        if self._content is None:
            self._content = Content.from_rich_text(finding_prompt(self._finding), self._console)
        return self._content

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        return self.content.render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.content.get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        if rules.get("line_pad", 0) or rules.get("text_wrap", "wrap") == "nowrap":
            return self.content.get_height(rules, width)
        overflow = rules.get("text_overflow", "fold")
        return sum(
            1 if "\t" not in line and cell_len(line) <= width else _wrapped(line, width, overflow)
            for line in self._lines
        )

    def __str__(self) -> str:
        return "\n".join(self._lines)


@memoized(512)
def _wrapped(line: str, width: int, overflow: str) -> int:
    """The rows Content wraps one line of text into (styles do not change where it wraps)."""
    rules: RulesMap = {"text_overflow": overflow}  # type: ignore[typeddict-item]
    return Content(line).get_height(rules, width)


class FindingsPanel(OptionList):
    """An OptionList of FindingPrompts: it paints only the rows it shows."""

    def show(self, findings: tuple[FindingView, ...]) -> None:
        self.clear_options()
        self.set_class(not findings, "-empty")  # one line, no border (sassview.tcss)
        if not findings:
            self.add_option(Option(Text("no findings", style="dim"), disabled=True))
            self.border_title = Content("findings")  # not the previous kernel's count
            return
        console = self.app.console if self.is_attached else None
        self.add_options(
            [Option(FindingPrompt(f, console), id=str(i)) for i, f in enumerate(findings)]
        )
        counts = finding_counts(f.severity.name.lower() for f in findings)
        self.border_title = Content(f"findings ({counts})")

    def select(self, index: int) -> None:
        """Follow `]`/`[` from the app without posting FindingChosen back."""
        with self.prevent(OptionList.OptionHighlighted):
            self.highlighted = index

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.post_message(FindingChosen(int(event.option.id)))
