"""Every command the README's command-line section shows is one the CLI has, with the
options it shows: the section is read from the README itself, so it cannot drift."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer.main

from api.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _shown() -> list[list[str]]:
    """The ``verletica …`` lines of the section's code block, as words (comments and
    ``$(…)`` left out), each command separated by ``|`` or ``;`` taken on its own."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Command line\n", 1)[1]
    block = section.split("```bash\n", 1)[1].split("\n```", 1)[0]
    found = []
    for line in block.splitlines():
        line = re.sub(r"\$\([^)]*\)", "X", line.split("  #", 1)[0]).strip()
        if line.startswith("export ") or not line.startswith("verletica "):
            continue
        words = shlex.split(line.rstrip("&").replace("…", ""))
        found.append(words[1:])
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
    assert len(_shown()) >= 40


def test_every_command_shown_exists_with_the_options_shown() -> None:
    for words in _shown():
        if "|" in words:  # the summary line: `verletica up | demo | worker | token <subject>`
            names = [w for w in words if w not in ("|", "<subject>")]
            assert [n for n in names if n not in _top().commands] == [], words
            continue
        command, rest = _command(words)
        assert not hasattr(command, "commands"), f"no such command: verletica {' '.join(words)}"
        known = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
        shown = {w.split("=", 1)[0] for w in rest if w.startswith("--")}
        assert shown <= known, (words, shown - known)
