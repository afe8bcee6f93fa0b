"""The README is a map: every relative link in it and in the ``docs/`` pages leads to a
file that exists, and every page of ``docs/`` is on the map. A page moved or renamed
without its links fails here, not in a reader's browser."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))

FENCE = re.compile(r"^[ ]*```.*?^[ ]*```[ ]*$", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`[^`\n]*`")
INLINE = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
"""A scheme (``https:``, ``mailto:``…) or a protocol-relative address: not a file here."""


def links(text: str) -> list[str]:
    """The link targets of a Markdown text, inline and reference style, images included;
    what sits in code (fenced blocks, inline spans) is not a link."""
    prose = CODE.sub("", FENCE.sub("", text))
    return INLINE.findall(prose) + REFERENCE.findall(prose)


def broken(page: Path) -> list[str]:
    """The relative links of ``page`` whose file (the link without its ``#anchor`` or
    ``?query``) does not exist."""
    missing = []
    for target in links(page.read_text(encoding="utf-8")):
        if EXTERNAL.match(target):
            continue
        path = re.split(r"[#?]", target, maxsplit=1)[0]
        if path and not (page.parent / path).exists():
            missing.append(target)
    return missing


def test_every_relative_link_points_at_a_file_that_exists() -> None:
    assert PAGES, "no docs/*.md pages"
    found = {page.relative_to(ROOT).as_posix(): broken(page) for page in (README, *PAGES)}
    assert {page: targets for page, targets in found.items() if targets} == {}


REPO_PATH = re.compile(
    r"`((?:domain|usecases|adapters|activities|workflows|worker|api|tests|bench|evals|docs|examples)"
    r"/[A-Za-z0-9_./-]*)(?:::[A-Za-z0-9_.]+)?`"
)
"""A path of the repository named in code (``domain/runs/run.py``, ``tests/x.py::test``)."""


def named_paths_missing(page: Path) -> list[str]:
    """The repository paths ``page`` names in code spans that do not exist."""
    text = page.read_text(encoding="utf-8")
    return [p for p in REPO_PATH.findall(text) if "*" not in p and not (ROOT / p).exists()]


def test_every_path_named_in_code_exists() -> None:
    """A module moved or renamed without its mentions fails here: the pages name code in
    backticks, which a link test does not read."""
    found = {page.name: named_paths_missing(page) for page in (README, *PAGES)}
    assert {page: paths for page, paths in found.items() if paths} == {}


def test_a_path_named_in_code_that_is_gone_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "`domain/organization/contracts.py` and `domain/gone.py::f`\n", encoding="utf-8"
    )
    assert named_paths_missing(page) == ["domain/gone.py"]


def test_every_docs_page_is_on_the_map() -> None:
    linked = {
        (ROOT / re.split(r"[#?]", target, maxsplit=1)[0]).resolve()
        for target in links(README.read_text(encoding="utf-8"))
        if not EXTERNAL.match(target)
    }
    assert [p.name for p in PAGES if p.resolve() not in linked] == []


def test_a_broken_link_is_caught_and_code_and_addresses_are_not_links(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("x\n", encoding="utf-8")
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "a.png").write_bytes(b"")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#a-heading) ![shot](shots/a.png) [self](#top) [web](https://x.example/y)\n"
        "<https://x.example/z> [mail](mailto:a@x.example) `[not](a-link.md)`\n"
        "[gone](missing.md#anchor) ![lost](shots/b.png)\n"
        "[ref]: elsewhere/nothing.md\n"
        "```bash\necho '[code](not-a-link.md)'\n```\n",
        encoding="utf-8",
    )
    assert broken(page) == ["missing.md#anchor", "shots/b.png", "elsewhere/nothing.md"]
