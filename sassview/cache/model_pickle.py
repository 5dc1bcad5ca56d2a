"""How the model is written into its pickle: each record as a plain tuple, each repeated
string once.

Loading a pickle is creating its objects: at 65k instructions the model and its Inspections
were 1.86 million of them, 1.48 million now (benchmarks/bench_warm.py's kernel); loading
costs what they cost. Two things here make them fewer and cheaper, and neither changes what
is loaded (the loaded model equals the built one, field for field, and every view shows it
alike: tests/test_model_cache.py, tests/test_cache_model_pickle.py):

- The model's NamedTuples (instructions, source locations, control codes) are written as
  `tuple.__new__(cls, fields)`: pickle's default for a tuple subclass calls the class'
  `__new__`, a Python function, once per record (an eighth of the PTX instructions' load).
- Equal strings, and equal tuples of strings, in those records are written once, so the
  loaded records share them. The parsers make one `"FFMA"` and one `("E", "CONSTANT")` per
  distinct instruction text, one PTX operand string (`"%f94"`) per use and one file name per
  source location; shared, the pickle holds a reference instead (26.6 -> 23.3 MB at 65k
  instructions, so fewer bytes to read and hash too, and 20 MB less memory once loaded).
  Strings are immutable and nothing in sassview tells equal ones apart by identity.

Measured together (one process, the two formats' loads interleaved): 4-7 % off the unpickle.
What is left dominates by count: 0.9 million ints (addresses and lines, which pickle cannot
share) and 205k dicts, the analyses' JSON-shaped facts (memory's `by_line` is four dicts per
source line, its and coalescing's `accesses` one per access: their facts are 44 of the
unpickle's ~200 ms, the Program 125). Measured and left out: loading frozen slots dataclasses
without dataclasses' own __setstate__ (2 %), deriving the correspondence tables on load
(slower than loading them).
"""

from __future__ import annotations

import copyreg
import pickle
from types import MappingProxyType
from typing import IO, Any

from sassview.ir import ControlCode, PtxInstruction, SassInstruction, SourceLoc

# The model's NamedTuples (plain tuples of their fields: no instance dict, no reduce of their
# own) and, by position, their fields that hold a string or a tuple of strings.
_STRINGS: dict[type[tuple[Any, ...]], tuple[str, ...]] = {
    SassInstruction: ("opcode", "modifiers", "marks"),
    PtxInstruction: ("opcode", "modifiers", "operands", "guard"),
    SourceLoc: ("file",),
    ControlCode: (),
}
_RECORDS = {
    cls: tuple(map(cls._fields.index, names))  # type: ignore[attr-defined]
    for cls, names in _STRINGS.items()
}


def _mapping_proxy(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


def _reduce_proxy(proxy: MappingProxyType[Any, Any]) -> tuple[Any, ...]:
    return (_mapping_proxy, (dict(proxy),))


class ModelPickler(pickle.Pickler):
    """A Pickler (protocol 5) for the model. Its read-only mappings are MappingProxyType,
    which pickle refuses: they are written as the dict they wrap."""

    dispatch_table = {**copyreg.dispatch_table, MappingProxyType: _reduce_proxy}

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, protocol=5)
        self._strings: dict[str, str] = {}
        self._tuples: dict[tuple[str, ...], tuple[str, ...]] = {}

    def reducer_override(self, obj: Any) -> Any:
        strings = _RECORDS.get(type(obj))
        if strings is None:
            return NotImplemented
        fields = list(obj)
        for i in strings:
            fields[i] = self._shared(fields[i])
        return (tuple.__new__, (type(obj), tuple(fields)))

    def _shared(self, value: object) -> object:
        """The first equal string (or tuple of strings) this pickle saw: one object for all."""
        if type(value) is str:
            return self._strings.setdefault(value, value)
        if type(value) is tuple and value and type(value[0]) is str:
            found = self._tuples.get(value)
            if found is None and all(type(s) is str for s in value):
                strings = self._strings.setdefault
                found = self._tuples[value] = tuple(strings(s, s) for s in value)
            return value if found is None else found
        return value
