"""`i`: what the instruction under the cursor does, in our words, with NVIDIA's page linked."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from sassview.ir import ControlCode
from sassview.tui.opcode_help import describe, explain_control


def opcode_text(instruction: str, mnemonic: str, control: ControlCode | None = None) -> Table:
    h = describe(mnemonic)
    grid = Table.grid(padding=(0, 1))
    grid.add_column()
    grid.add_row(Text(instruction, style="bold"))
    grid.add_row(Text(f"{h.opcode} · {h.category}", style="dim"))
    grid.add_row(Text(h.summary))
    if h.modifiers or h.unknown:
        mods = Table.grid(padding=(0, 2))
        mods.add_column(style="bold cyan", no_wrap=True)
        mods.add_column()
        for m, meaning in h.modifiers:
            mods.add_row(f".{m}", meaning)
        for m in h.unknown:
            mods.add_row(f".{m}", Text("(no note of ours)", style="dim"))
        grid.add_row(Text("\nmodifiers", style="bold"))
        grid.add_row(mods)
    if control is not None:
        fields = Table.grid(padding=(0, 2))
        fields.add_column(style="bold cyan", no_wrap=True)
        fields.add_column()
        for name, meaning in explain_control(control):
            fields.add_row(name, meaning)
        grid.add_row(Text(f"\nschedule  {control.notation}", style="bold"))
        grid.add_row(fields)
    link = Text("\nNVIDIA's instruction set reference: ", style="dim")
    link.append(h.url, style=f"underline link {h.url}")
    grid.add_row(link)
    return grid


class OpcodeScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,i", "dismiss", "Close")]

    def __init__(self, instruction: str, mnemonic: str, control: ControlCode | None = None) -> None:
        super().__init__()
        self.instruction = instruction
        self.mnemonic = mnemonic
        self.control = control

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="opcode", classes="dialog"):
            yield Static(opcode_text(self.instruction, self.mnemonic, self.control))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
