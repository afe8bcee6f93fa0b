"""Every command the documentation shows is one that exists, with the options it shows:
the ``verletica`` commands of ``docs/cli.md`` (the README's command-line section
before it became a map), of every other page's ``bash`` blocks and of the README's,
and every ``make`` target the README and the pages name. Each is read from the page
itself, so it cannot drift. (``tests/e2e/test_readme_walkthrough.py`` runs the
command-line page's blocks after the demo.)"""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path
from typing import Any

import typer.main

from api.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CLI_PAGE = ROOT / "docs" / "cli.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
INVOCATION = re.compile(r"(?:^|\$\()verletica ([^|>)]*)")
"""A ``verletica`` command at the start of a line or of a ``$(…)``, up to a pipe, a
redirection or the substitution's end."""


def _bash_blocks(page: Path) -> list[str]:
    """A page's ``bash`` code blocks, in order, each dedented (a block may sit in a list
    item) and with its continued lines (ending in ``\\``) joined."""
    text = page.read_text(encoding="utf-8")
    found = []
    for part in re.split(r"^[ ]*```bash\n", text, flags=re.MULTILINE)[1:]:
        block = textwrap.dedent(re.split(r"\n[ ]*```", part, maxsplit=1)[0])
        found.append(re.sub(r"\\\n\s*", " ", block))
    return found


def blocks() -> list[str]:
    """The command-line page's ``bash`` code blocks, in order (the walkthrough after the
    demo, then a firm of one's own)."""
    return _bash_blocks(CLI_PAGE)


def _shown(shown_blocks: list[str] | None = None) -> list[list[str]]:
    """Every ``verletica …`` invocation of the code blocks (the command-line page's by
    default), as words (comments left out)."""
    found = []
    for block in blocks() if shown_blocks is None else shown_blocks:
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("eval "):
                line = line.removeprefix("eval ").strip('"')
            if line.startswith("export ") and "=$(" in line:
                line = line.split("=", 1)[1]
            for match in INVOCATION.finditer(line):
                found.append(shlex.split(match.group(1)))
    return found


def _everywhere() -> list[list[str]]:
    """Every ``verletica …`` invocation of every page's and the README's code blocks."""
    return _shown([b for page in (README, *PAGES) for b in _bash_blocks(page)])


MAKE = re.compile(r"(?:^|`)make ([a-z][a-z0-9-]*)", re.MULTILINE)
"""``make <target>`` at the start of a code line or of inline code."""


def _make_targets() -> set[str]:
    """The targets the Makefile defines."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][a-z0-9-]*):", text, flags=re.MULTILINE))


def _top() -> Any:
    return typer.main.get_command(app)


def _command(words: list[str]) -> tuple[Any, list[str]]:
    """The (sub)command ``words`` name, and the words after its name."""
    command = _top()
    while hasattr(command, "commands") and words and words[0] in command.commands:
        command, words = command.commands[words[0]], words[1:]
    return command, words


def test_the_section_shows_commands() -> None:
    assert len(blocks()) == 2
    shown = _shown()
    assert len(shown) >= 50
    # the walkthrough signs in, and a firm of one's own is founded, inside $(…)
    assert ["token", "$DEMO_FOUNDER"] in shown
    assert any(words[0] == "onboard" for words in shown)


def test_the_command_line_page_holds_the_walkthrough_the_readme_points_to() -> None:
    readme = README.read_text(encoding="utf-8")
    assert "(docs/cli.md)" in readme
    # the README is a map: its own blocks run no verletica command the test would miss
    assert _shown([b for b in _bash_blocks(README)]) == []


def test_every_command_shown_exists_with_the_options_shown() -> None:
    everywhere = _everywhere()
    assert len(everywhere) > len(_shown())  # the fleet page's block is read too
    for words in everywhere:
        command, rest = _command(words)
        assert not hasattr(command, "commands"), f"no such command: verletica {' '.join(words)}"
        known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        shown = {w.split("=", 1)[0] for w in rest if w.startswith("--")}
        assert shown <= known, (words, shown - known)


def test_every_make_target_shown_exists() -> None:
    shown = {t for page in (README, *PAGES) for t in MAKE.findall(page.read_text("utf-8"))}
    assert {"demo", "test"} <= shown
    assert shown <= _make_targets(), shown - _make_targets()
