"""Disassemble a cubin with nvdisasm, once per cubin, cached by content."""

from sassview.disasm.nvdisasm import Disassembly, disassemble, disassembling

__all__ = ["Disassembly", "disassemble", "disassembling"]
