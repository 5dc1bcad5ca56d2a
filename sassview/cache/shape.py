"""Is a cached file of the shape its name says? A check of the frame, not of the content.

Digests prove an entry is as it was written, not that what was written is whole: a manifest
made over a broken file (a hand edit, a bug, a writer that rewrote both) would serve the same
broken file for ever, and the user would see "malformed ELF" on their source with no way out.
So a file the reader cannot use is treated as a damaged entry (removed, and built again):

- `*.cubin`: an ELF64 little-endian file for EM_CUDA (190) whose section table lies inside it,
  each section's bytes (but NOBITS ones) too, and whose section-name table index is in range:
  what binary/elf.py's reader checks before it reads a section.

How it can be wrong: a cubin whose frame is right but whose contents are not (a flipped
instruction word, a broken .symtab) passes; the reader then fails with its own message.
"""

from __future__ import annotations

import struct

EM_CUDA = 190
_SHT_NOBITS = 8
_HEADER = struct.Struct("<16sHHIQQQIHHHHHH")  # Elf64_Ehdr
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr


def usable(name: str, data: bytes) -> bool:
    """Can a reader use the file `name` holding `data`? (Only cubins are looked at.)"""
    return cubin_framed(data) if name.endswith(".cubin") else True


def cubin_framed(data: bytes) -> bool:
    if len(data) < _HEADER.size or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return False
    fields = _HEADER.unpack_from(data)
    machine, shoff, shentsize, shnum, shstrndx = fields[2], fields[6], *fields[11:14]
    if machine != EM_CUDA or shentsize != _SECTION.size or shnum == 0:
        return False
    if shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        return False
    for i in range(shnum):
        section = _SECTION.unpack_from(data, shoff + i * shentsize)
        kind, offset, size = section[1], section[4], section[5]
        if kind != _SHT_NOBITS and offset + size > len(data):
            return False
    return True
