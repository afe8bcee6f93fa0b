"""requirements.lock pins, with hashes, every dependency pyproject.toml names (runtime and
dev): a dependency added to one and not the other fails here, not on a fresh machine."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[2]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def _pinned() -> dict[str, list[str]]:
    pins: dict[str, list[str]] = {}
    current = None
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        pinned = re.match(r"^([A-Za-z0-9_.\-]+)==([^ \\]+)", line)
        if pinned:
            current = pinned.group(1).lower().replace("_", "-")
            pins[current] = []
        elif current and line.strip().startswith("--hash=sha256:"):
            pins[current].append(line.strip())
    return pins


def test_every_dependency_is_pinned_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = {
        _name(r) for r in [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    }
    pins = _pinned()
    assert wanted - set(pins) == set(), "run `make lock`"
    assert all(pins[name] for name in pins), "every pin carries its hashes"


def test_the_lock_names_no_index_or_local_path() -> None:
    text = (ROOT / "requirements.lock").read_text(encoding="utf-8")
    for option in ("--index-url", "--extra-index-url", "--find-links", "--trusted-host"):
        assert option not in text.replace("--no-emit-find-links", "").replace(
            "--no-emit-index-url", ""
        ).replace("--no-emit-trusted-host", "")
