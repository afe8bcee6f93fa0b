"""The layer rules of DESIGN.md, checked by import-linter contracts in pyproject.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_import_contracts_hold() -> None:
    done = subprocess.run(
        [str(LINT_IMPORTS)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def _lint_with(probe: Path, source: str) -> subprocess.CompletedProcess[str]:
    """lint-imports with one more module in the tree (removed afterwards)."""
    probe.write_text(source)
    try:
        return subprocess.run(
            [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
    finally:
        probe.unlink()


def test_a_forbidden_import_is_caught() -> None:
    """The contracts bite: a domain module importing an adapter breaks the build."""
    done = _lint_with(
        ROOT / "domain" / "_probe_forbidden.py", "import adapters.store.store  # noqa: F401\n"
    )
    assert done.returncode != 0
    assert "domain is pure" in done.stdout


def test_only_the_memory_package_reaches_the_memory_stores() -> None:
    """A use case, an activity or the API reading the memory tables or the SQL backend
    directly (around the gate) breaks the build."""
    done = _lint_with(
        ROOT / "adapters" / "store" / "_probe_memory.py",
        "import adapters.memory.tables  # noqa: F401\n",
    )
    assert done.returncode != 0
    assert "only the memory package reaches the memory stores" in done.stdout
    assert "adapters.store._probe_memory -> adapters.memory.tables" in done.stdout


def test_an_activity_importing_a_model_client_is_caught() -> None:
    """Activities reach the model only through the provider port the worker hands them:
    importing the Gemini client or an HTTP client in one breaks the build."""
    for module in ("google.genai", "httpx"):
        done = _lint_with(
            ROOT / "activities" / "_probe_model.py", f"import {module}  # noqa: F401\n"
        )
        assert done.returncode != 0, module
        assert "nor a model client" in done.stdout
        assert f"activities._probe_model -> {module.split('.')[0]}" in done.stdout
