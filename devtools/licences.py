"""Every pinned package's licence, and whether it may ship in a commercial product.

The seed asks for pins that are "license-clean for commercial distribution". What a
package declares is read from its installed metadata, most precise first:

1. ``License-Expression`` (PEP 639): an SPDX expression, taken as written;
2. ``License``, when it is a valid SPDX expression;
3. the licence files the package ships (their text, by the grant each licence opens
   with: "Permission is hereby granted, free of charge" is MIT);
4. ``License`` as free text a package commonly writes ("Apache 2.0", "BSD 2-Clause
   License");
5. the ``License ::`` classifiers.

An expression is allowed when each of its ``AND`` terms is on the allowlist
(``[tool.verletica.licences]`` in pyproject.toml) and, for ``OR``, when one alternative
is. A package that declares nothing recognisable fails, unless the allowlist's
``reviewed`` table names its licence and why (someone read it).

``python -m devtools.licences`` prints the table and fails on anything outside the list;
``--write docs/licences.md`` also writes the table there.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")

_FREE_TEXT = {
    "apache 2.0": "Apache-2.0",
    "apache 2": "Apache-2.0",
    "apache license 2.0": "Apache-2.0",
    "apache license, version 2.0": "Apache-2.0",
    "apache software license": "Apache-2.0",
    "bsd 2-clause license": "BSD-2-Clause",
    "bsd 3-clause license": "BSD-3-Clause",
    "3-clause bsd license": "BSD-3-Clause",
    "2-clause bsd license": "BSD-2-Clause",
    "new bsd license": "BSD-3-Clause",
    "simplified bsd license": "BSD-2-Clause",
    "mit license": "MIT",
    "the mit license": "MIT",
    "isc license": "ISC",
    "isc license (iscl)": "ISC",
    "mozilla public license 2.0 (mpl 2.0)": "MPL-2.0",
    "the unlicense (unlicense)": "Unlicense",
    "python software foundation license": "PSF-2.0",
}
"""Free-text names packages write in ``License`` or a classifier, as SPDX identifiers.
A bare "BSD License" is not here: it does not say which BSD."""

_VAGUE = frozenset({"bsd", "bsd license", "osi approved", "dual license"})
"""What says a licence is of a family without saying which: neither read nor refused
(another source must say which; with none, the package is unknown)."""

_TEXTS = (
    ("GNU AFFERO GENERAL PUBLIC LICENSE", "AGPL-3.0-only"),
    ("GNU LESSER GENERAL PUBLIC LICENSE Version 2.1", "LGPL-2.1-only"),
    ("GNU LESSER GENERAL PUBLIC LICENSE", "LGPL-3.0-only"),
    ("GNU GENERAL PUBLIC LICENSE Version 2", "GPL-2.0-only"),
    ("GNU GENERAL PUBLIC LICENSE", "GPL-3.0-only"),
    ("Mozilla Public License Version 2.0", "MPL-2.0"),
    ("Apache License", "Apache-2.0"),
    ("Permission is hereby granted, free of charge", "MIT"),
    ("Permission to use, copy, modify, and/or distribute this software for any", "ISC"),
    ("This is free and unencumbered software released into the public domain", "Unlicense"),
)
"""The opening grant of each licence's text, in the order to look for them (the GNU
licences name each other, so the most specific comes first). BSD is told apart below."""


@dataclass(frozen=True)
class Policy:
    """The allowlist: SPDX identifiers that may ship, and licences read by a person for
    packages whose metadata does not say (package → "SPDX: why")."""

    allowed: frozenset[str]
    reviewed: Mapping[str, str]

    @classmethod
    def from_pyproject(cls, path: Path = ROOT / "pyproject.toml") -> Policy:
        table = tomllib.loads(path.read_text())["tool"]["verletica"]["licences"]
        return cls(
            allowed=frozenset(table["allowed"]),
            reviewed={canonicalize_name(k): v for k, v in table.get("reviewed", {}).items()},
        )


@dataclass(frozen=True)
class Licence:
    """One pinned package: its licence as an SPDX expression (None: unknown), where it
    was read, and whether the policy allows it (``problem`` says why not)."""

    package: str
    version: str
    expression: str | None
    source: str
    problem: str | None

    @property
    def allowed(self) -> bool:
        return self.problem is None


def pinned(lock: Path) -> dict[str, str]:
    """The lock's pins: canonical package name → version."""
    pins: dict[str, str] = {}
    for line in lock.read_text().splitlines():
        found = _PIN.match(line)
        if found:
            pins[canonicalize_name(found.group(1))] = found.group(2)
    if not pins:
        raise ValueError(f"{lock} pins nothing")
    return pins


def _spdx(text: str) -> str | None:
    try:
        return str(canonicalize_license_expression(text.strip()))
    except (InvalidLicenseExpression, ValueError):
        return None


def text_licence(text: str) -> str | None:
    """The licence a licence file's text grants (None: not one recognised)."""
    flat = " ".join(text.split())
    for opening, spdx in _TEXTS:
        if opening in flat:
            return spdx
    if "Redistribution and use in source and binary forms" in flat:
        # BSD-3-Clause adds the clause on endorsement by the authors' names.
        return "BSD-3-Clause" if "endorse or promote" in flat else "BSD-2-Clause"
    return None


def _from_files(dist: metadata.Distribution) -> str | None:
    found: list[str] = []
    for file in dist.files or ():
        name = file.name.upper()
        if not (name.startswith(("LICEN", "COPYING")) and ".dist-info" in str(file)):
            continue
        try:
            text = Path(str(dist.locate_file(file))).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        spdx = text_licence(text)
        if spdx is not None and spdx not in found:
            found.append(spdx)
    return " AND ".join(found) if found else None


def declared(dist: metadata.Distribution) -> tuple[str | None, str]:
    """A distribution's licence as an SPDX expression, and where it was read."""
    meta = dist.metadata
    expression = next(iter(meta.get_all("License-Expression", [])), None)
    if expression and (spdx := _spdx(expression)):
        return spdx, "License-Expression"
    field = str(next(iter(meta.get_all("License", [])), "")).strip()
    if field and "\n" not in field and (spdx := _spdx(field)):
        return spdx, "License"
    if spdx := _from_files(dist):
        return spdx, "licence file"
    if field:
        first_line = field.splitlines()[0].strip().lower()
        if first_line in _FREE_TEXT:
            return _FREE_TEXT[first_line], "License (free text)"
        if first_line not in _VAGUE:  # "GPLv3": nothing else may speak over it
            return None, f"License {field.splitlines()[0].strip()[:40]!r}, unread"
    named = [
        c.split("::")[-1].strip().lower()
        for c in meta.get_all("Classifier", [])
        if c.startswith("License ::")
    ]
    unread = [c for c in named if c not in _FREE_TEXT and c not in _VAGUE]
    if unread:
        return None, f"classifier {unread[0]!r}, unread"
    classified = sorted({_FREE_TEXT[c] for c in named if c in _FREE_TEXT})
    if classified:  # several: the package is under each of them, as far as anyone can tell
        return " AND ".join(classified), "classifier"
    return None, "nothing recognisable"


def permits(expression: str, allowed: frozenset[str]) -> bool:
    """Whether an SPDX expression may ship: every ``AND`` term allowed, one ``OR``
    alternative enough; parentheses nest. ``X WITH Y`` is one term."""
    tokens = re.findall(r"\(|\)|[^\s()]+", expression)
    position = 0

    def term() -> bool:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "(":
            value = either()
            position += 1  # the closing parenthesis
            return value
        if position < len(tokens) and tokens[position] == "WITH":
            token = f"{token} WITH {tokens[position + 1]}"
            position += 2
        return token in allowed

    def joined(word: str, operand: Callable[[], bool]) -> bool:
        """Operands joined by ``word``: all must hold for AND, one for OR."""
        nonlocal position
        values = [operand()]
        while position < len(tokens) and tokens[position] == word:
            position += 1
            values.append(operand())
        return all(values) if word == "AND" else any(values)

    def either() -> bool:
        return joined("OR", lambda: joined("AND", term))

    return either()


def check(lock: Path, policy: Policy) -> list[Licence]:
    """Each package the lock pins, its licence and whether the policy allows it. A pin
    that is not installed at its version is a problem (its metadata cannot be read)."""
    found: list[Licence] = []
    for package, version in sorted(pinned(lock).items()):
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            found.append(Licence(package, version, None, "not installed", "not installed"))
            continue
        if canonicalize_name(dist.metadata["Name"]) != package or dist.version != version:
            stale = f"installed at {dist.version}, pinned at {version}: run make install"
            found.append(Licence(package, version, None, "not installed", stale))
            continue
        expression, source = declared(dist)
        if package in policy.reviewed:
            expression, source = _spdx(policy.reviewed[package].split(":", 1)[0]), "reviewed"
        problem: str | None = None
        if expression is None:
            problem = "declares no licence this check recognises: read it, then "
            problem += "name it under [tool.verletica.licences.reviewed]"
        elif not permits(expression, policy.allowed):
            problem = f"{expression} is not on the allowlist"
        found.append(Licence(package, version, expression, source, problem))
    return found


def table(licences: list[Licence]) -> str:
    """The licences as a Markdown table (docs/licences.md)."""
    rows = [
        "| package | version | licence | read from | allowed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for lic in licences:
        verdict = "yes" if lic.allowed else f"**no**: {lic.problem}"
        rows.append(
            f"| {lic.package} | {lic.version} | {lic.expression or '—'} | {lic.source} "
            f"| {verdict} |"
        )
    return "\n".join(rows) + "\n"


PAGE_HEAD = """# Licences of the pinned packages

Written by `python -m devtools.licences --write docs/licences.md`, which `make lock` and
`make upgrade` run on every new lock (a package outside the allowlist refuses the lock).
The allowlist, and why each licence is on it, is `[tool.verletica.licences]` in
pyproject.toml; how each licence is read is in `devtools/licences.py`.

"""


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m devtools.licences", description=__doc__)
    parser.add_argument("--lock", type=Path, default=ROOT / "requirements.lock")
    parser.add_argument("--write", type=Path, help="also write the table there")
    args = parser.parse_args(argv)
    licences = check(args.lock, Policy.from_pyproject())
    text = table(licences)
    sys.stdout.write(text)
    if args.write is not None:
        args.write.write_text(PAGE_HEAD + text)
    refused = [lic for lic in licences if not lic.allowed]
    for lic in refused:
        sys.stderr.write(f"licence refused: {lic.package} {lic.version}: {lic.problem}\n")
    return 1 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
