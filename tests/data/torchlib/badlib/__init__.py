"""A library that computes with torch at import: it needs torch itself."""

from badlib.tables import LOOKUP

__all__ = ["LOOKUP"]
