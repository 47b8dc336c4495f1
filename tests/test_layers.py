"""The layers run one way: ``lint-imports`` holds the contract of ``pyproject.toml``.

A lower layer never imports a higher one (deferred imports count), and the product never imports
its tests. This runs the tool as CI does, so that the README's test command checks it too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_lint_imports_keeps_every_contract():
    tool = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(tool), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Layers run one way KEPT" in out.stdout
    assert "0 broken" in out.stdout


def test_lint_imports_catches_a_deferred_upward_import(tmp_path):
    """The contract is not vacuous: one function-level import of the graph from a game breaks it."""
    import shutil

    for package in ("optimizer", "server", "tests"):
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with open(tmp_path / "optimizer" / "games" / "base.py", "a") as handle:
        handle.write("\n\ndef _upward():\n    from ..graph import track  # noqa: F401\n")
    tool = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(tool), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "optimizer.games is not allowed to import optimizer.graph" in out.stdout
    assert "optimizer.games.base -> optimizer.graph.track" in out.stdout
