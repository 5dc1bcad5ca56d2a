"""The packages that export names loaded on first use do it one way (sassview/lazy.py): each
name of their `__all__` resolves, another name is an AttributeError naming the package, and
no module writes its own `__getattr__` table."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import sassview

PACKAGES = ("sassview", "sassview.cache", "sassview.toolchain", "sassview.testing")


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_name_resolves_and_no_other(name: str) -> None:
    module = importlib.import_module(name)
    for exported in module.__all__:
        assert getattr(module, exported) is not None, exported
    with pytest.raises(AttributeError, match=rf"module '{name}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


def test_the_api_and_the_declarations_come_from_their_modules() -> None:
    from sassview import api, declare

    assert sassview.compile is api.compile and sassview.cuda is declare.cuda


def test_no_module_writes_its_own_getattr_table() -> None:
    root = Path(sassview.__file__).parent
    own = [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*.py"))
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]
    assert not own, f"use sassview.lazy.lazy_exports: {own}"


def test_a_name_loads_its_module_on_first_use_only() -> None:
    code = (
        "import sys, sassview.cache as c\n"
        "before = 'sassview.cache.sweep' in sys.modules\n"
        "c.prune\n"
        "print(before, 'sassview.cache.sweep' in sys.modules, c.__dict__.get('prune') is c.prune)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "True", "True"], done.stderr
