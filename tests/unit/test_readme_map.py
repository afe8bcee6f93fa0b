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


# Each column of the map and where its cells must live (the adapters column holds what is
# neither the store nor Temporal).
COLUMNS = {
    "domain": ("domain/",),
    "use cases": ("usecases/",),
    "activities": ("activities/",),
    "workflow": ("workflows/",),
    "store": ("adapters/store/",),
    "Temporal": ("adapters/temporal/",),
    "adapters": ("adapters/",),
    "HTTP": ("api/http/",),
    "CLI": ("api/cli/",),
    "console": ("api/console/",),
    "views": ("api/views/",),
}
NOT_OTHER_ADAPTERS = ("adapters/store/", "adapters/temporal/")


def _table() -> tuple[list[str], list[list[str]]]:
    """The map's header cells and its rows' cells, every line of the table read."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## The map", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    split = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines]
    header, rule, *rows = split
    assert all(set(c) <= set("-: ") for c in rule), rule
    return header, rows


def _map_rows() -> dict[str, list[str]]:
    return {
        cells[0].strip("`"): [p for c in cells[1:] for p in CELL_PATH.findall(c)]
        for cells in _table()[1]
    }


def test_every_row_names_a_stem_and_every_cell_sits_in_its_layers_column() -> None:
    header, rows = _table()
    assert header[0] == "capability" and tuple(header[1:]) == tuple(COLUMNS), header
    misplaced = set()
    for cells in rows:
        assert re.fullmatch(r"`[a-z_]+`", cells[0]), f"a row the map cannot read: {cells}"
        assert len(cells) == len(header), f"row {cells[0]} has {len(cells)} cells"
        for column, cell in zip(header[1:], cells[1:], strict=True):
            for path in CELL_PATH.findall(cell):
                other = column == "adapters" and path.startswith(NOT_OTHER_ADAPTERS)
                if not path.startswith(COLUMNS[column]) or other:
                    misplaced.add((cells[0], column, path))
    assert misplaced == set()


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
    """``git ls-files '*<stem>*'`` in the layers (and untracked files there): each file is
    a cell, or under one."""
    missing = set()
    for stem, paths in _map_rows().items():
        found = subprocess.run(
            # Untracked files too: a new module left off the map fails before it is committed.
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", f"*{stem}*"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for path in found:
            if not path.startswith(LAYERS) or "/migrations/" in path or not path.endswith(".py"):
                continue
            if not any(path == p or (p.endswith("/") and path.startswith(p)) for p in paths):
                missing.add((stem, path))
    assert missing == set()
