"""Disassemble a cubin with nvdisasm, once per cubin, cached by content."""

from sassview.disasm.nvdisasm import Disassembly, PendingDisassembly, disassemble, start_disassembly

__all__ = ["Disassembly", "PendingDisassembly", "disassemble", "start_disassembly"]
