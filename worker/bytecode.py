"""Bytecode for the workflow sandbox.

Temporal's sandbox imports a workflow's module afresh for every run it starts. Python
then loads the module's cached bytecode, but when bytecode is never written (as under
``PYTHONDONTWRITEBYTECODE``, which some machines and images set) it compiles the source
again for every run: measured, about a quarter of a worker's time in the sandbox. So
the worker writes bytecode whatever the environment says, beside the sources, or in the
data folder when the sources are read-only.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def keep_bytecode(data_dir: str) -> None:
    """Let this process write bytecode, where it can."""
    sys.dont_write_bytecode = False
    if sys.pycache_prefix is None and not os.access(ROOT / "workflows", os.W_OK):
        cache = Path(data_dir).resolve() / "pycache"
        cache.mkdir(parents=True, exist_ok=True)
        sys.pycache_prefix = str(cache)
