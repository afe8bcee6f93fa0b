"""Every command the README's command-line section shows is one the CLI has, with the
options it shows: the section is read from the README itself, so it cannot drift.
(``tests/e2e/test_readme_walkthrough.py`` runs them after the demo.)"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer.main

from api.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"
INVOCATION = re.compile(r"(?:^|\$\()verletica ([^|>)]*)")
"""A ``verletica`` command at the start of a line or of a ``$(…)``, up to a pipe, a
redirection or the substitution's end."""


def blocks() -> list[str]:
    """The section's ``bash`` code blocks, in order (the walkthrough after the demo, then
    a firm of one's own)."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Command line\n", 1)[1].split("\n## ", 1)[0]
    return [part.split("\n```", 1)[0] for part in section.split("```bash\n")[1:]]


def _shown() -> list[list[str]]:
    """Every ``verletica …`` invocation of the section's code blocks, as words (comments
    left out)."""
    found = []
    for block in blocks():
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("eval "):
                line = line.removeprefix("eval ").strip('"')
            if line.startswith("export ") and "=$(" in line:
                line = line.split("=", 1)[1]
            for match in INVOCATION.finditer(line):
                found.append(shlex.split(match.group(1)))
    return found


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


def test_every_command_shown_exists_with_the_options_shown() -> None:
    for words in _shown():
        command, rest = _command(words)
        assert not hasattr(command, "commands"), f"no such command: verletica {' '.join(words)}"
        known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        shown = {w.split("=", 1)[0] for w in rest if w.startswith("--")}
        assert shown <= known, (words, shown - known)
