"""How the model is written into its pickle: its records as plain tuples, each repeated
string once.

Loading a pickle is creating its objects: at 65k instructions the model and its Inspections
were 1.86 million of them, 1.48 million now (benchmarks/bench_warm.py's kernel); loading
costs what they cost. Three things here make them fewer and cheaper, and none changes what
is loaded (the loaded model equals the built one, field for field, and every view shows it
alike: tests/test_model_cache.py, tests/test_cache_model_pickle.py):

- The model's NamedTuples (source locations, control codes) are written as
  `tuple.__new__(cls, fields)`: pickle's default for a tuple subclass calls the class'
  `__new__`, a Python function, once per record (an eighth of the PTX instructions' load).
- A kernel's SASS instructions and a PTX function's instructions, the two big tuples of
  records, are written as the rows of their fields and loaded by one C loop (`_records`):
  no call and no class reference per record, and their holder (Kernel, PtxFunction) set
  from its fields directly.
- Equal strings, and equal tuples of strings, in those records are written once, so the
  loaded records share them. The parsers make one `"FFMA"` and one `("E", "CONSTANT")` per
  distinct instruction text, one PTX operand string (`"%f94"`) per use and one file name per
  source location; shared, the pickle holds a reference instead (26.6 -> 21.7 MB at 65k
  instructions with the rows, so fewer bytes to read and hash too, and 20 MB less memory
  once loaded). Strings are immutable and nothing in sassview tells equal ones apart by
  identity.

Measured on that kernel (the formats' loads interleaved in one process, best of 10): the
unpickle 210 -> 176 ms (188 with the shared strings alone), writing 634 -> 563 ms. What is
left dominates by count: 0.9 million ints (addresses and lines, which pickle cannot share)
and 205k dicts, the analyses' JSON-shaped facts (memory's `by_line` is four dicts per source
line, its and coalescing's `accesses` one per access: their facts are ~44 ms of the
unpickle, the Program ~110).
Measured and left out: loading the other frozen slots dataclasses (Operands, Annotations)
without dataclasses' own __setstate__ (2 %), deriving the correspondence tables on load
(slower than loading them).
"""

from __future__ import annotations

import copyreg
import dataclasses
import pickle
from itertools import repeat
from types import MappingProxyType
from typing import IO, Any

from sassview.ir import ControlCode, Kernel, PtxFunction, PtxInstruction, SassInstruction, SourceLoc

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
# The holders of the two big record tuples, by their fields, and the record type they hold.
_HOLDERS = {
    Kernel: (tuple(f.name for f in dataclasses.fields(Kernel)), SassInstruction),
    PtxFunction: (tuple(f.name for f in dataclasses.fields(PtxFunction)), PtxInstruction),
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
        cls = type(obj)
        if cls in _HOLDERS:
            names, record = _HOLDERS[cls]
            values = [getattr(obj, name) for name in names]
            at = names.index("instructions")
            if all(type(r) is record for r in values[at]):  # else each as itself
                values[at] = _Rows(record, tuple(map(self._fields, values[at])))
            return (_holder, (cls, names, tuple(values)))
        if cls in _RECORDS:
            return (tuple.__new__, (cls, self._fields(obj)))
        return NotImplemented

    def _fields(self, record: tuple[Any, ...]) -> tuple[Any, ...]:
        """A record's fields, its strings shared."""
        fields = list(record)
        for i in _RECORDS[type(record)]:
            fields[i] = self._shared(fields[i])
        return tuple(fields)

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


class _Rows:
    """A tuple of one NamedTuple type written as the tuples of their fields, and loaded by one
    C loop (`_records`): no call and no class reference per record."""

    __slots__ = ("cls", "rows")

    def __init__(self, cls: type[tuple[Any, ...]], rows: tuple[tuple[Any, ...], ...]) -> None:
        self.cls = cls
        self.rows = rows

    def __reduce__(self) -> tuple[Any, ...]:
        return (_records, (self.cls, self.rows))


def _records(cls: type[tuple[Any, ...]], rows: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    return tuple(map(tuple.__new__, repeat(cls), rows))


def _holder(cls: type, names: tuple[str, ...], values: tuple[Any, ...]) -> Any:
    """A Kernel or PtxFunction from its fields, as dataclasses' own __setstate__ sets them
    (they are frozen) but without looking the fields up again."""
    obj: Any = object.__new__(cls)
    for name, value in zip(names, values, strict=True):
        object.__setattr__(obj, name, value)
    return obj
