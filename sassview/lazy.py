"""One way for a package to export names that load their module on first use.

`import sassview`, `sassview.cache`, `sassview.toolchain` and `sassview.testing` name more than
a warm run reads (pytest imports sassview.testing for the plugin in every session; `--help`
reads no cache entry); each gives its module a `__getattr__` made here from a table:

    __getattr__ = lazy_exports(__name__, {"Store": "store", "release_claim": ("locks", "release")})

A name maps to the submodule that defines it (relative to the package), or to (submodule, the
name there). Type checkers read the same names from an `if TYPE_CHECKING:` import block beside
the table.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str,
    where: Mapping[str, str | tuple[str, str]],
    *,
    keep: dict[str, Any] | None = None,
    otherwise: Callable[[str], Any | None] | None = None,
    owner: str | None = None,
) -> Callable[[str], Any]:
    """A module-level `__getattr__` for `package` that imports `where[name]` on first use.

    `keep`: the module's globals(), to store each value once loaded (later reads are plain
    attribute reads); leave it out where a test may patch the submodule's name and the package's
    must follow. `otherwise`: asked for a name not in the table (None: there is no such name).
    `owner`: the module the `__getattr__` is for, where it is not `package` (sassview.api
    re-exports sassview.frontends' names).
    """

    def __getattr__(name: str) -> Any:
        spot = where.get(name)
        if spot is None:
            value = otherwise(name) if otherwise is not None else None
            if value is None:
                raise AttributeError(f"module {owner or package!r} has no attribute {name!r}")
            return value
        module, attribute = (spot, name) if isinstance(spot, str) else spot
        value = getattr(importlib.import_module(f"{package}.{module}"), attribute)
        if keep is not None:
            keep[name] = value
        return value

    return __getattr__
