from __future__ import annotations

import os
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"


def corpus_dirs() -> list[Path]:
    """Every recorded (case, arch) directory."""
    return sorted(p.parent for p in CORPUS.glob("*/*/kernel.cubin"))


def corpus_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test session gets its own cache, so tests never see a user's entries."""
    root = tmp_path_factory.getbasetemp() / "sassview-cache"
    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(root))
    monkeypatch.delenv("SASSVIEW_NO_CACHE", raising=False)
    os.environ.setdefault("SASSVIEW_TEST", "1")
