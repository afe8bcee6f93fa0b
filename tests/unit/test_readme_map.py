"""The README's map: one row a capability, one file (or folder) a cell. Every path it
names exists and carries the row's stem, so the map cannot drift from the house; and
every capability's files, found by the stem, are on the map or under a folder it names.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CELL_PATH = re.compile(r"\]\(([^)#\s]+)\)")
LAYERS = ("domain/", "usecases/", "activities/", "workflows/", "adapters/", "api/")


def _map_rows() -> dict[str, list[str]]:
    text = README.read_text(encoding="utf-8")
    section = text.split("## The map", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        stem = cells[0].strip("`")
        rows[stem] = [p for c in cells[1:] for p in CELL_PATH.findall(c)]
    return rows


def test_the_map_has_a_row_for_each_capability() -> None:
    rows = _map_rows()
    assert len(rows) >= 15, rows.keys()
    assert all(paths for paths in rows.values()), rows


def test_every_path_on_the_map_exists_and_carries_its_rows_stem() -> None:
    wrong = {
        (stem, path)
        for stem, paths in _map_rows().items()
        for path in paths
        if not (ROOT / path).exists() or stem not in path
    }
    assert wrong == set()


def test_every_file_a_stem_finds_is_on_the_map() -> None:
    """``git ls-files '*<stem>*'`` in the layers: each file is a cell, or under one."""
    missing = set()
    for stem, paths in _map_rows().items():
        found = subprocess.run(
            ["git", "ls-files", f"*{stem}*"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
        for path in found:
            if not path.startswith(LAYERS) or "/migrations/" in path or not path.endswith(".py"):
                continue
            if not any(path == p or (p.endswith("/") and path.startswith(p)) for p in paths):
                missing.add((stem, path))
    assert missing == set()
