"""Where text sends someone: email addresses, web hosts and bank accounts, read the way
the systems that act on them read them, and folded so that they compare.

A recipient field is parsed strictly: a list of plain ``local@domain`` mailboxes (with
an optional display name). Anything a mail relay could read differently from a pattern
(a quoted local part, a comment, an address literal, two ``@``) is no address at all,
so the broker holds it instead of approving the part a pattern happened to match.
Domains compare as IDNA A-labels (UTS 46): ``ATLAS.example``, ``atlas.example.`` and
``atlas.example`` are one domain; ``аtlas`` (a Cyrillic a), ``glaß`` and
``atlas.example。evil.example`` are others. Text leaving the firm is scanned more
loosely (a link is a link however it is written), and IBANs count only with a valid
checksum (``FY24 EBITDA BRIDGE`` is not one).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import idna

_LOCAL = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_MAILBOX = re.compile(rf"({_LOCAL})@([^\s@<>()\[\],;:\"'\\]+)")
_NAMED = re.compile(rf"^[^<>@\"()\\]*<\s*({_LOCAL}@[^\s@<>()\[\],;:\"'\\]+)\s*>$")
_A_LABELS = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$")
_LOOSE_ADDRESS = re.compile(r"[\w.!#$%&'*+/=?^`{|}~-]+@[^\s@<>()\[\],;:\"'\\/?#]+", re.UNICODE)
_LINK = re.compile(
    r"(?:\b(?:https?|ftps?|sftp|wss?|file):/*|(?<![\w@.:])//|\bwww\.)"
    r"(\[[^\]]*\]|[^\s/\\?#<>\"'()]+)",
    re.IGNORECASE,
)
_BARE_HOST = re.compile(r"^(?:[\w-]+\.)+[A-Za-z]{2,24}$", re.UNICODE)
_SEPARATOR = r"[\s.\-\u00a0\u2007\u2009\u202f]?"
_DIGIT = re.compile(r"\d")
_IBAN_START = re.compile(r"(?<![A-Z0-9])[A-Z]{2}\d{2}")
_SEPARATORS = re.compile(r"[\s.\-\u00a0\u2007\u2009\u202f]")
_BANK_LABEL = (
    r"(?:bank account|account number|account no|acct(?: no)?|a/c|routing(?: number)?|aba|"
    r"sort code|swift|bic|iban|beneficiary account|wire (?:it )?to|remit to|pay (?:it )?to)"
)
_LABEL_WORDS = (
    "account",
    "acct",
    "a/c",
    "routing",
    "aba",
    "sort code",
    "swift",
    "bic",
    "iban",
    "wire",
    "remit",
    "pay",
)
_LABELLED_ACCOUNT = re.compile(
    rf"\b{_BANK_LABEL}\b(?:\W+\w+){{0,3}}?\W+((?:\d{_SEPARATOR}){{5,30}}\d)", re.IGNORECASE
)
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
    "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28,
    "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
    "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
    "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
    "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30,
    "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
    "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
    "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip
"""The length of an IBAN in each country that issues them (the ISO 13616 registry)."""
_NOT_REGISTRABLE = frozenset({"co", "com", "org", "net", "ac", "gov", "edu", "ltd", "plc"})


_ASCII_PUNCTUATION = {c: " " for c in range(128) if unicodedata.category(chr(c)).startswith("P")}
"""ASCII punctuation, each to a space (as :func:`fold_name` treats every punctuation)."""
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")
"""What :func:`fold_account` drops of ASCII text (``str.isalnum`` is exactly this there)."""


def fold(text: str) -> str:
    """``text`` as names compare: compatibility forms folded (NFKC), invisible format
    characters dropped, case ignored, spacing collapsed."""
    if text.isascii():  # NFKC leaves ASCII as it is, and ASCII has no format character
        return " ".join(text.split()).casefold()
    folded = unicodedata.normalize("NFKC", text)
    kept = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return " ".join(kept.split()).casefold()


def fold_name(name: str) -> str:
    """A payee's name as it compares: :func:`fold`, with punctuation dropped too."""
    if name.isascii():
        return fold(name.translate(_ASCII_PUNCTUATION))
    folded = unicodedata.normalize("NFKC", name)
    return fold("".join(" " if unicodedata.category(c)[0] == "P" else c for c in folded))


def fold_account(account: str) -> str:
    """Bank details as they compare: letters and digits only, upper case."""
    if account.isascii():
        return _NOT_ALNUM.sub("", account).upper()
    folded = unicodedata.normalize("NFKC", account)
    return "".join(c for c in folded if c.isalnum()).upper()


_PLAIN_DOMAIN = re.compile(
    r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$"
)


@lru_cache(maxsize=8192)
def fold_domain(domain: str) -> str:
    """A domain as mail and browsers resolve it: its IDNA A-labels (UTS 46, nontransitional),
    without a leading ``@`` or ``www.`` or a trailing dot. A domain that has no A-label
    form is kept as folded text prefixed ``?``: it equals only itself. (Kept per domain:
    the IDNA codec costs more than the rest of a decision.)"""
    plain = domain.strip().lstrip("@").rstrip(".")
    if _PLAIN_DOMAIN.match(plain) and "xn--" not in plain.lower():
        return plain.lower().removeprefix("www.")  # what UTS 46 makes of letters, digits, -
    d = unicodedata.normalize("NFKC", domain).strip().lstrip("@").rstrip(".").rstrip("\u3002")
    try:
        encoded = idna.encode(d, uts46=True, transitional=False).decode("ascii").rstrip(".")
    except (idna.IDNAError, UnicodeError, ValueError):
        return "?" + fold(d)
    return encoded.removeprefix("www.")


def registrable(domain: str) -> bool:
    """Whether ``domain`` (folded) can stand for one organisation: at least two labels, and
    not a bare public suffix such as ``co.uk`` (a short list, no registry)."""
    labels = domain.split(".")
    if len(labels) < 2 or domain.startswith("?"):
        return False
    return not (len(labels) == 2 and labels[0] in _NOT_REGISTRABLE)


def _mailbox(local: str, domain: str) -> str | None:
    folded = fold_domain(domain)
    if not _A_LABELS.match(folded):
        return None
    return f"{local.casefold()}@{folded}"


def address(raw: str) -> str | None:
    """One mailbox (``local@domain`` or ``Name <local@domain>``, ``mailto:`` allowed),
    folded; None when it is not plainly one."""
    text = unicodedata.normalize("NFKC", raw).strip().removeprefix("mailto:")
    named = _NAMED.match(text)
    if named is not None:
        text = named.group(1)
    m = _MAILBOX.fullmatch(text)
    return None if m is None else _mailbox(m.group(1), m.group(2))


def recipient_list(raw: str) -> list[str] | None:
    """The mailboxes of a recipient field (separated by commas or semicolons), folded,
    each once; None when any part is not plainly a mailbox (or there is none)."""
    parts = [p for p in re.split(r"[,;]", raw) if p.strip()]
    found = [address(p) for p in parts]
    if not found or any(a is None for a in found):
        return None
    return list(dict.fromkeys(a for a in found if a is not None))


def addresses_in(text: str) -> list[str]:
    """Every address written in ``text``, folded, each once, in order (an address whose
    domain has no form is kept as written, so that it is never established)."""
    if "@" not in text and "\uff20" not in text:  # a full-width @ folds to one
        return []
    out = []
    for raw in _LOOSE_ADDRESS.findall(unicodedata.normalize("NFKC", text)):
        local, _, domain = raw.rstrip(".").rpartition("@")
        out.append(_mailbox(local, domain) or fold(raw))
    return list(dict.fromkeys(out))


def links_in(text: str) -> list[str]:
    """The hosts of every link in ``text`` (``https://…``, ``//…``, ``http:host``,
    ``www.…``, a bare ``host.tld/path``), folded; an address literal (``[…]``) is kept as
    written, a host that resolves nowhere too: neither is ever established."""
    lowered = text.lower()
    if not any(t in lowered for t in ("/", "www", "http", "ftp", "ws:", "wss:", "file:")):
        return []
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    hosts = []
    for found in _LINK.findall(text):
        if found.startswith("["):
            hosts.append(found)
            continue
        host = found.rpartition("@")[2].partition(":")[0]
        if "." in host or host.startswith("xn--"):
            hosts.append(fold_domain(host))
    start = 0
    while (slash := text.find("/", start)) != -1:  # a bare host.tld/path: the word before
        start = slash + 1
        word = text[:slash].rsplit(None, 1)[-1] if text[:slash].strip() else ""
        if _BARE_HOST.match(word):
            hosts.append(fold_domain(word))
    return list(dict.fromkeys(h for h in hosts if h and h != "?"))


def _iban_ok(code: str) -> bool:
    if IBAN_LENGTHS.get(code[:2]) != len(code) or not code.isascii():
        return False  # (Zürich, Société: letters an IBAN never holds)
    moved = code[4:] + code[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def accounts_in(text: str) -> list[str]:
    """Bank accounts written in ``text``, folded: IBANs with a valid checksum (any case,
    any spacing), and numbers labelled as bank details ("account number", "sort code",
    "wire to"…)."""
    found = []
    if _DIGIT.search(text):
        upper = unicodedata.normalize("NFKC", text).upper()
        for m in _IBAN_START.finditer(upper):
            # the IBAN is the prefix of its country's length, separators aside
            length = IBAN_LENGTHS.get(m.group()[:2])
            if length is None:
                continue
            code = fold_account(_SEPARATORS.sub("", upper[m.start() : m.start() + 2 * length]))
            if _iban_ok(code[:length]):
                found.append(code[:length])
        lowered = text.lower()
        if any(label in lowered for label in _LABEL_WORDS):
            found += [fold_account(m) for m in _LABELLED_ACCOUNT.findall(text)]
    return list(dict.fromkeys(found))


def domain_of(mailbox: str) -> str:
    """The domain of a folded mailbox."""
    return mailbox.rpartition("@")[2]


def within(domain: str, known: Iterable[str]) -> bool:
    """Whether ``domain`` is one of ``known`` or a subdomain of one (whoever holds a domain
    holds its subdomains; ``atlas.example.evil.example`` is ``evil.example``'s)."""
    return any(domain == k or domain.endswith("." + k) for k in known)
