"""Licence-clean pins (issue 26.11): every pinned package's licence is on the allowlist,
docs/licences.md lists them as the lock pins them, and the gate that `make lock` and
`make upgrade` run keeps a new lock only when every step passes."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devtools import licences, upgrade
from devtools.licences import Policy, permits, text_licence

ROOT = Path(__file__).parents[2]
POLICY = Policy.from_pyproject(ROOT / "pyproject.toml")


def test_every_pinned_package_may_ship() -> None:
    found = licences.check(ROOT / "requirements.lock", POLICY)
    refused = [(lic.package, lic.problem) for lic in found if not lic.allowed]
    assert refused == [], "a pin outside the allowlist: see devtools/licences.py"
    assert len(found) == len(licences.pinned(ROOT / "requirements.lock"))


def test_the_licences_page_is_the_lock_as_pinned() -> None:
    """docs/licences.md is written by the gate; a lock changed without it fails here."""
    found = licences.check(ROOT / "requirements.lock", POLICY)
    page = (ROOT / "docs" / "licences.md").read_text()
    assert page == licences.PAGE_HEAD + licences.table(found), (
        "run python -m devtools.licences --write docs/licences.md"
    )


def test_no_copyleft_licence_is_allowed() -> None:
    for strong in ("GPL-2.0-only", "GPL-3.0-only", "GPL-3.0-or-later", "AGPL-3.0-only", "SSPL-1.0"):
        assert not permits(strong, POLICY.allowed), strong


@pytest.mark.parametrize(
    ("expression", "ok"),
    [
        ("MIT", True),
        ("MIT OR GPL-3.0-only", True),
        ("GPL-3.0-only OR MIT", True),
        ("MIT AND GPL-3.0-only", False),
        ("GPL-3.0-only AND MIT", False),
        ("(MIT OR GPL-3.0-only) AND Apache-2.0", True),
        ("(MIT AND GPL-3.0-only) OR Apache-2.0", True),
        ("(MIT AND GPL-3.0-only) OR AGPL-3.0-only", False),
        ("Apache-2.0 AND (BSD-3-Clause OR GPL-2.0-only) AND (Zlib)", True),
        ("GPL-2.0-only WITH Classpath-exception-2.0", False),
        ("LicenseRef-Proprietary", False),
    ],
)
def test_an_expression_is_read_by_spdx_precedence(expression: str, ok: bool) -> None:
    assert permits(expression, POLICY.allowed) is ok


_ids = st.sampled_from(["MIT", "Apache-2.0", "GPL-3.0-only", "AGPL-3.0-only", "BSD-3-Clause"])


@st.composite
def _expressions(draw: st.DrawFn, depth: int = 0) -> tuple[str, bool]:
    """An SPDX expression and whether it may ship, built side by side."""
    if depth >= 3 or draw(st.booleans()):
        name = draw(_ids)
        return name, name in POLICY.allowed
    left, right = draw(_expressions(depth + 1)), draw(_expressions(depth + 1))
    if draw(st.booleans()):
        return f"({left[0]} AND {right[0]})", left[1] and right[1]
    return f"({left[0]} OR {right[0]})", left[1] or right[1]


@given(_expressions())
def test_permits_agrees_with_the_expression_it_reads(case: tuple[str, bool]) -> None:
    expression, ok = case
    assert permits(expression, POLICY.allowed) is ok


def test_a_licence_file_is_read_by_its_grant() -> None:
    mit = "Copyright (c) 2024 X\n\nPermission is hereby granted, free of charge, to any person"
    bsd2 = "Redistribution and use in source and binary forms, with or without\nmodification"
    bsd3 = bsd2 + " ... Neither the name ... may be used to endorse or promote products"
    assert text_licence(mit) == "MIT"
    assert text_licence(bsd2) == "BSD-2-Clause"
    assert text_licence(bsd3) == "BSD-3-Clause"
    assert text_licence("GNU LESSER GENERAL PUBLIC LICENSE\n Version 3, 29 June 2007") == (
        "LGPL-3.0-only"
    )
    assert text_licence("GNU GENERAL PUBLIC LICENSE\n   Version 2, June 1991") == "GPL-2.0-only"
    assert text_licence("GNU AFFERO GENERAL PUBLIC LICENSE Version 3") == "AGPL-3.0-only"
    assert text_licence("All rights reserved.") is None


def test_a_package_outside_the_list_or_unknown_refuses_the_lock(tmp_path: Path) -> None:
    """The check run on a lock pinning this venv's packages, with a policy that allows
    only MIT: the others are refused, each with its reason."""
    lock = tmp_path / "requirements.lock"
    lock.write_text(
        "pytest==" + _version("pytest") + " \\\n    --hash=sha256:00\n"
        "cryptography==" + _version("cryptography") + "\n"
        "certifi==" + _version("certifi") + "\n"
        "absent-package-xyz==1.0\n"
    )
    found = {lic.package: lic for lic in licences.check(lock, Policy(frozenset({"MIT"}), {}))}
    assert found["pytest"].allowed
    assert found["cryptography"].problem == "Apache-2.0 OR BSD-3-Clause is not on the allowlist"
    assert not found["certifi"].allowed  # MPL-2.0
    assert found["absent-package-xyz"].problem == "not installed"
    reviewed = Policy(frozenset({"MIT"}), {"certifi": "MIT: read by a person (a test)"})
    assert {lic.package: lic for lic in licences.check(lock, reviewed)}["certifi"].allowed


def test_a_pin_at_another_version_than_installed_is_refused(tmp_path: Path) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text("pytest==0.0.1\n")
    (found,) = licences.check(lock, POLICY)
    assert not found.allowed and "pinned at 0.0.1" in (found.problem or "")


def test_the_command_fails_on_a_refused_pin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = tmp_path / "requirements.lock"
    lock.write_text("absent-package-xyz==1.0\npytest==" + _version("pytest") + "\n")
    assert licences.main(["--lock", str(lock)]) == 1
    assert "licence refused: absent-package-xyz" in capsys.readouterr().err
    lock.write_text("pytest==" + _version("pytest") + "\n")
    assert licences.main(["--lock", str(lock)]) == 0


def _version(package: str) -> str:
    from importlib import metadata

    return metadata.version(package)


# --- the gate ------------------------------------------------------------------------


class _Venv:
    """What the gate installs, in order (a fake installer)."""

    def __init__(self, fails_on: str | None = None) -> None:
        self.installed: list[str] = []
        self.fails_on = fails_on

    def install(self, lock: Path) -> bool:
        self.installed.append(lock.read_text())
        return lock.read_text() != self.fails_on


def _locks(tmp_path: Path) -> tuple[Path, Path, Path]:
    old, new, page = tmp_path / "requirements.lock", tmp_path / "new.lock", tmp_path / "page.md"
    old.write_text("old pins")
    new.write_text("new pins")
    page.write_text("old page")
    return old, new, page


def test_the_gate_keeps_a_lock_that_passes_every_step(tmp_path: Path) -> None:
    old, new, page = _locks(tmp_path)
    venv, seen = _Venv(), []
    steps = [
        (name, lambda name=name: seen.append((name, old.read_text())) or True)
        for name in ("a", "b", "c")
    ]
    verdict = upgrade.gate(new, old, venv.install, steps, keep=(page,))
    assert verdict == upgrade.Verdict(kept=True)
    assert (old.read_text(), new.exists()) == ("new pins", False)
    # every step ran with the lock under test in the lock's place (the suite reads it)
    assert seen == [("a", "new pins"), ("b", "new pins"), ("c", "new pins")]
    assert venv.installed == ["new pins"]


@pytest.mark.parametrize("failing", ["licences", "contracts", "suite"])
def test_the_gate_refuses_a_lock_a_step_fails_and_puts_back_the_old(
    tmp_path: Path, failing: str
) -> None:
    old, new, page = _locks(tmp_path)
    venv, ran = _Venv(), []

    def step(name: str) -> bool:
        ran.append(name)
        page.write_text("page of the new pins")
        return name != failing

    names = ["licences", "contracts", "suite"]
    steps = [(name, lambda name=name: step(name)) for name in names]
    verdict = upgrade.gate(new, old, venv.install, steps, keep=(page,))
    assert verdict == upgrade.Verdict(kept=False, refused_by=failing)
    assert ran == names[: names.index(failing) + 1]  # nothing runs after the refusal
    assert (old.read_text(), new.exists(), page.read_text()) == ("old pins", False, "old page")
    assert venv.installed == ["new pins", "old pins"]


def test_the_gate_refuses_when_the_new_pins_do_not_install_or_a_step_crashes(
    tmp_path: Path,
) -> None:
    old, new, page = _locks(tmp_path)
    venv = _Venv(fails_on="new pins")
    verdict = upgrade.gate(new, old, venv.install, [("never", lambda: True)], keep=(page,))
    assert verdict.refused_by == "installing the new pins"
    assert (old.read_text(), new.exists(), venv.installed) == (
        "old pins",
        False,
        ["new pins", "old pins"],
    )

    old, new, page = _locks(tmp_path)

    def crashes() -> bool:
        raise OSError("disk full")

    verdict = upgrade.gate(new, old, _Venv().install, [("crashes", crashes)], keep=(page,))
    assert not verdict.kept and "OSError: disk full" in (verdict.refused_by or "")
    assert old.read_text() == "old pins" and not new.exists()


def test_the_gate_says_so_when_the_old_pins_do_not_install_again(tmp_path: Path) -> None:
    old, new, page = _locks(tmp_path)
    verdict = upgrade.gate(
        new, old, _Venv(fails_on="old pins").install, [("no", lambda: False)], keep=(page,)
    )
    assert "run make install" in (verdict.refused_by or "")
    assert old.read_text() == "old pins"


def test_the_gate_removes_a_page_the_old_lock_did_not_have(tmp_path: Path) -> None:
    old, new, _ = _locks(tmp_path)
    page = tmp_path / "absent.md"

    def writes() -> bool:
        page.write_text("new")
        return False

    upgrade.gate(new, old, _Venv().install, [("writes", writes)], keep=(page,))
    assert not page.exists()


def test_make_lock_and_upgrade_go_through_the_gate() -> None:
    """The Makefile's recipes call the gate (with the suites for an upgrade) and never
    write requirements.lock themselves."""
    makefile = (ROOT / "Makefile").read_text()

    def recipe(target: str) -> str:
        body = makefile.split(f"\n{target}: ", 1)[1]
        return body.split("\n\n", 1)[0]

    lock, bump = recipe("lock"), recipe("upgrade")
    assert "-m devtools.upgrade requirements.lock.new\n" in lock
    assert "-m devtools.upgrade requirements.lock.new --suite" in bump
    for body in (lock, bump):
        assert "-o requirements.lock.new" in body and "-o requirements.lock " not in body
        assert "mv " not in body


def _dist(tmp_path: Path, *headers: str) -> metadata.PathDistribution:
    """A distribution whose METADATA carries ``headers`` (and no licence file)."""
    info = tmp_path / "pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n" + "".join(f"{h}\n" for h in headers)
    )
    return metadata.PathDistribution(info)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (("License: GPLv3", "Classifier: License :: OSI Approved :: MIT License"), None),
        (
            (
                "Classifier: License :: OSI Approved :: MIT License",
                "Classifier: License :: OSI Approved :: GNU General Public License v3 (GPLv3)",
            ),
            None,
        ),
        (("License: BSD", "Classifier: License :: OSI Approved :: BSD License"), None),
        (
            (
                "License: MIT License",
                "Classifier: License :: OSI Approved :: Apache Software License",
            ),
            "MIT",
        ),
        (
            (
                "Classifier: License :: OSI Approved :: MIT License",
                "Classifier: License :: OSI Approved :: Apache Software License",
            ),
            "Apache-2.0 AND MIT",
        ),
        (("License-Expression: mit or apache-2.0", "License: GPLv3"), "MIT OR Apache-2.0"),
    ],
)
def test_what_a_package_says_is_read_or_left_to_a_person(
    tmp_path: Path, headers: tuple[str, ...], expected: str | None
) -> None:
    """A licence this check cannot read is never spoken over by one it can: a package
    saying "GPLv3" with an MIT classifier is for a person to read, not MIT."""
    assert licences.declared(_dist(tmp_path, *headers))[0] == expected
