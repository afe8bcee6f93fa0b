"""The gate a new lock passes before it replaces requirements.lock.

``make lock`` and ``make upgrade`` compile a new lock beside the old one, then run
``python -m devtools.upgrade requirements.lock.new [--suite]``:

1. the new pins are installed;
2. every pinned package's licence must be on the allowlist (devtools/licences.py);
   docs/licences.md is rewritten from the new lock;
3. with ``--suite`` (``make upgrade``): the contract suite, then the whole suite.

The new lock stands in requirements.lock while the steps run (the suite's own tests read
the lock, as they will once it is kept). Only when every step passes does it stay.
Otherwise the old lock and page are put back, the old pins are installed again (a
package only the new lock brought stays installed, unused), and the gate exits non-zero
saying which step refused it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from devtools.licences import ROOT

Step = tuple[str, Callable[[], bool]]
"""A check the new lock must pass: its name (said when it refuses) and the check."""


@dataclass(frozen=True)
class Verdict:
    """What the gate decided: kept (the new lock replaced the old) or the step that
    refused it."""

    kept: bool
    refused_by: str | None = None


def gate(
    new: Path,
    lock: Path,
    install: Callable[[Path], bool],
    steps: Sequence[Step],
    keep: Sequence[Path] = (),
) -> Verdict:
    """Put ``new`` in ``lock``'s place and install it, then run ``steps`` in order (so a
    suite reads the lock under test, as it would once kept). On the first that fails (or
    raises), or if installing fails: ``lock`` is put back as it was and installed again,
    and ``keep``'s files are put back as they were. Either way ``new`` is gone."""
    if not new.is_file():
        raise FileNotFoundError(f"no new lock at {new}")
    saved = {path: path.read_bytes() if path.exists() else None for path in (lock, *keep)}
    refused: str | None = None
    new.replace(lock)
    try:
        if not install(lock):
            refused = "installing the new pins"
        else:
            for name, passes in steps:
                if not passes():
                    refused = name
                    break
    except Exception as exc:  # a step that crashes refuses the lock like one that fails
        refused = f"{refused or 'a step'} ({type(exc).__name__}: {exc})"
    if refused is None:
        return Verdict(kept=True)
    for path, content in saved.items():
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(content)
    if not install(lock):
        refused += "; and the old pins did not install again: run make install before anything else"
    return Verdict(kept=False, refused_by=refused)


def _run(*command: str, env: dict[str, str] | None = None) -> bool:
    return subprocess.run(command, cwd=ROOT, env=env).returncode == 0


def _install(lock: Path) -> bool:
    return _run(
        sys.executable, "-m", "pip", "install", "--quiet", "--require-hashes", "-r", str(lock)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devtools.upgrade", description=__doc__)
    parser.add_argument("new", type=Path, help="the new lock (requirements.lock.new)")
    parser.add_argument("--lock", type=Path, default=ROOT / "requirements.lock")
    parser.add_argument(
        "--suite", action="store_true", help="also run the contract and whole suites"
    )
    args = parser.parse_args(argv)
    page = ROOT / "docs" / "licences.md"
    py = sys.executable
    steps: list[Step] = [
        (
            "the licence check",
            lambda: _run(
                py, "-m", "devtools.licences", "--lock", str(args.lock), "--write", str(page)
            ),
        )
    ]
    if args.suite:
        env = {
            **os.environ,
            "VERLETICA_TEST_POSTGRES_URL": os.environ.get(
                "VERLETICA_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
            ),
        }
        steps += [
            (
                "the contract suite",
                lambda: _run(py, "-m", "pytest", "-n", "0", "tests/contracts", env=env),
            ),
            (
                "the whole suite",
                lambda: _run(py, "-m", "pytest", "-n", "2", "--dist", "loadfile", env=env),
            ),
        ]
    verdict = gate(args.new, args.lock, _install, steps, keep=(page,))
    if verdict.kept:
        sys.stdout.write(f"{args.lock.name} replaced: the new pins passed every step\n")
        return 0
    sys.stderr.write(
        f"new pins refused by {verdict.refused_by}: {args.lock.name} is as it was, and its "
        "pins are installed again\n"
    )
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
