"""Testing what the compiler made: assertions, FileCheck, snapshots, and the pytest plugin.

    from sassview.testing import KernelUnderTest, filecheck
    import sassview
    k = KernelUnderTest(sassview.inspect("vecadd.cu", kernel="add_f4")[0])
    k.assert_load_width(128)

In pytest, use the `sassview_kernel` fixture (sassview.testing.plugin, registered as a pytest11
entry point). Names load lazily: pytest imports this package for the plugin in every session,
and that must cost nothing when no test uses it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sassview.lazy import lazy_exports

if TYPE_CHECKING:
    from sassview.report.normalize import normalize_ptx, normalize_sass
    from sassview.testing.failures import (
        CountMismatch,
        FeatureMismatch,
        SassviewAssertionError,
        SpillsFound,
        TooManyRegisters,
        UnrollMismatch,
        WidthMismatch,
    )
    from sassview.testing.filecheck import FileCheckFailure, filecheck, run_filecheck
    from sassview.testing.matchers import KernelUnderTest
    from sassview.testing.memory_use import BankConflictFound, CoalescingMismatch
    from sassview.testing.occupancy import OccupancyTooLow
    from sassview.testing.schedule import ScheduleMismatch
    from sassview.testing.snapshot import SnapshotMismatch

_WHERE: dict[str, str | tuple[str, str]] = {
    "KernelUnderTest": "matchers",
    "filecheck": "filecheck",
    "run_filecheck": "filecheck",
    "FileCheckFailure": "filecheck",
    "SnapshotMismatch": "snapshot",
    "OccupancyTooLow": "occupancy",
    "ScheduleMismatch": "schedule",
    "CoalescingMismatch": "memory_use",
    "BankConflictFound": "memory_use",
    **{
        name: "failures"
        for name in (
            "SassviewAssertionError",
            "SpillsFound",
            "TooManyRegisters",
            "FeatureMismatch",
            "UnrollMismatch",
            "WidthMismatch",
            "CountMismatch",
        )
    },
}
__all__ = [
    "BankConflictFound",
    "CoalescingMismatch",
    "CountMismatch",
    "FeatureMismatch",
    "FileCheckFailure",
    "KernelUnderTest",
    "OccupancyTooLow",
    "ScheduleMismatch",
    "SassviewAssertionError",
    "SnapshotMismatch",
    "SpillsFound",
    "TooManyRegisters",
    "UnrollMismatch",
    "WidthMismatch",
    "filecheck",
    "normalize_ptx",
    "normalize_sass",
    "run_filecheck",
]


def _normalized(name: str) -> Any | None:
    """The snapshot forms, exported here as before; they live in report/normalize.py, which
    `diff` reads too."""
    if name not in ("normalize_sass", "normalize_ptx"):
        return None
    from sassview.report import normalize

    return getattr(normalize, name)


__getattr__ = lazy_exports(__name__, _WHERE, otherwise=_normalized)
