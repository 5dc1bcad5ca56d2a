"""Mutations of real listings, shared by the hypothesis tests and the long campaign script."""

from __future__ import annotations

import random
from pathlib import Path

CORPUS = Path(__file__).parents[1] / "corpus"


def seeds(pattern: str) -> list[bytes]:
    """Real inputs to mutate, smallest first (mutants of small files run fast)."""
    files = sorted(CORPUS.glob(pattern), key=lambda p: p.stat().st_size)
    return [p.read_bytes() for p in files]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to four random edits: line deletion, duplication, swap, truncation, byte flips,
    splices of another part of the input, and insertion of awkward tokens."""
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(7)
        lines = data.split(b"\n")
        if choice == 0 and len(lines) > 1:
            del lines[rng.randrange(len(lines))]
            data = b"\n".join(lines)
        elif choice == 1 and lines:
            i = rng.randrange(len(lines))
            lines.insert(i, lines[rng.randrange(len(lines))])
            data = b"\n".join(lines)
        elif choice == 2 and len(lines) > 2:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        elif choice == 3 and data:
            data = data[: rng.randrange(len(data))]
        elif choice == 4 and data:
            buf = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            data = bytes(buf)
        elif choice == 5 and data:
            a, b = sorted(rng.randrange(len(data)) for _ in range(2))
            at = rng.randrange(len(data))
            data = data[:at] + data[a:b] + data[at:]
        else:
            tokens = [
                b"[",
                b"]",
                b"{",
                b"}",
                b'"',
                b",",
                b"@",
                b"/*",
                b"*/",
                b"//##",
                b"`(",
                b")",
                b"0x",
                b"-",
                b"\x00",
                b"\xff",
                b"R99999999999999999999",
                b"null",
                b"1e999",
            ]
            at = rng.randrange(len(data) + 1)
            data = data[:at] + rng.choice(tokens) + data[at:]
    return data
