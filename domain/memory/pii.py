"""Identifying detail in text: structured kinds by rules, names and addresses by a model.

Structured kinds are found by pattern and checked where they carry a check: an IBAN by
its mod-97 checksum, a payment card by Luhn, an IPv4 address by its octets, a US social
security number by the ranges never issued. Person names and street addresses have no
such shape. They are found by an :class:`EntityFinder` passed in (the trained tagger of
:mod:`adapters.memory.entity_tagger`), and by cues the rules know: a title or a
greeting before a capitalised name, a common given name (:mod:`domain.memory.names`)
with the surname after it; a house number before a street word, or a street word with
the number after it ("Goethestraße 12", "Calle Mayor 3") or before it ("12 rue de la
Paix"). Without a finder the cues alone catch the common forms of a few languages and
miss the rest: ``make eval-memory`` reports both, on held-out text.

What an organization never keeps (card numbers, national ids) is removed at ingestion;
the rest is kept and tagged, so that the release rule can mask it for readers who get a
redacted view.
"""

from __future__ import annotations

import bisect
import ipaddress
import re
from collections.abc import Iterator, Sequence
from typing import Protocol

from domain.memory.names import GIVEN_NAMES, WORDLIKE
from domain.memory.release import Span


class EntityFinder(Protocol):
    """Finds person names and street addresses (spans of kind ``person`` and
    ``address``) where no pattern can: the screen's trained tagger."""

    def entities(self, text: str) -> Sequence[Span]: ...


NEVER_KEPT = frozenset({"card", "national_id"})
"""Kinds removed at ingestion; the others are kept and tagged."""

_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9][\w.+-]{0,63}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![\w-])"
)
_PHONE = re.compile(
    r"(?<![\w+/.,:$€£-])"
    r"(?:\(\+\d{1,3}\)[ ]?|\+|00)?"  # a country code: "+49", "0049", "(+30)"
    r"\(?\d[\d ()/.-]{4,24}\d"  # digits in groups, area codes in parentheses
    r"(?:[ ]?(?:x|ext\.?)[ ]?\d{1,5})?"  # an extension
    r"(?![\w-]|[.,]\d)"
)
_PHONE_CUE = re.compile(
    # a word that starts like one saying phone or contact: "Tel.", "Telefonnummer",
    # "Rückruf", "call", "mobil", "WhatsApp", "Contacto" (not "Hotel", "order number")
    r"\b(?:tel|phone|call|mob|cell|cel|fax|ring|ruf|r[üu]ckruf|anruf|t[ée]l[ée]f|m[óo]vil|"
    r"whats ?app|sms|puhelin|tlf|gsm|handy|contact|kontakt)\w*[^\n\d]{0,20}$",
    re.IGNORECASE,
)
_NOT_PHONE = re.compile(
    r"\d{1,2}\.[ ]?\d{1,2}\.[ ]?\d{2,4}"  # a date with spaces: "12. 03. 2024"
    r"|\d{1,2}[.:]\d{2}[ ]?-[ ]?\d{1,2}[.:]\d{2}"  # opening hours: "08.00 - 17.00"
    r"|(?:19|20)\d\d(?:[ ]?[-/][ ]?\d+)+"  # years, and references after a year: "2024-1234567"
    r"|97[89]-\d+(?:-\d+)+"  # an ISBN
)
_THOUSANDS = re.compile(r"^\d{1,3}(?:([ .,])\d{3})+$")
_CURRENCY = r"(?:€|\$|£|¥|₹|EUR|USD|GBP|CHF|PLN|CZK|HUF|SEK|NOK|DKK|zł|Kč|Ft|kr|Rs\.?)"
_CURRENCY_BEFORE = re.compile(_CURRENCY + r"\s?$")
_CURRENCY_AFTER = re.compile(r"^\s?" + _CURRENCY)
_IBAN = re.compile(
    r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?(?![A-Za-z0-9])"
)
_DIGIT_RUN = re.compile(r"(?<![\w-])\d+(?:[ -]\d+)*(?![\w-])")
_SSN = re.compile(r"(?<![\d-])(\d{3})-(\d{2})-(\d{4})(?![\d-])")
_NINO = re.compile(
    r"(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])"
)
_DATE = re.compile(r"^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$")
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?!\d|\.\d)")
_IPV6 = re.compile(r"(?<![\w:.])(?=[0-9A-Fa-f:]*:[0-9A-Fa-f:]*:)[0-9A-Fa-f:]{2,39}(?![\w:])")
_UPPER, _LOWER = "A-ZÀ-ÖØ-ÞĀ-Ž", "a-zß-öø-ÿā-ž"
_NAME = rf"[{_UPPER}][{_LOWER}]+(?:[-'’][{_UPPER}][{_LOWER}]+)?"
_PARTICLE = r"(?:van der|van den|van de|de la|de los|van|von|der|de|di|da|del|du|le|la|dos)"
_GIVEN = re.compile(
    rf"(?<![\w-])({_NAME})(?:\s+(?:{_PARTICLE}\s+)?(?:O'|Mc|Mac)?({_NAME}))?(?![\w-])"
)
_PERSON = re.compile(
    r"\b(?:(?:Mr|Mrs|Ms|Mx|Dr|Prof|Sir|Dame)\.?|Dear|Hi|Hello|Attn:?|Attention:?|"
    r"Regards,|Sincerely,|Thanks,|Best,|Contact:?|signed by|prepared by|from|with|cc:?)"
    rf"\s+({_NAME}(?:\s+{_NAME}){{1,2}})"
)
_STREET_WORDS = (
    "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl|"
    "Square|Sq|Terrace|Parkway|Pkwy|Highway|Hwy|Close|Crescent|Row|Strasse|Straße|Rue|Via|"
    "Kingsway|Broadway|Gardens|Grove|Hill|Walk|Mews|Green|Park"
)
_POSTAL_TAIL = (
    rf"(?:,?\s+(?:\d{{4,5}}|\d{{4}}\s?[A-Z]{{2}})\s+[{_UPPER}][{_LOWER}]+"
    rf"|,\s+[{_UPPER}][{_LOWER}]+\s+[A-Z]{{1,2}}\d{{1,2}}[A-Z]?\s\d[A-Z]{{2}})?"
)
_ADDRESS_AFTER = re.compile(
    # German, Dutch, Scandinavian: the street word is a suffix, the number follows.
    rf"(?<![\w-])[{_UPPER}][{_LOWER}]*(?:straße|strasse|str\.|allee|weg|platz|gasse|ring|"
    r"damm|ufer|straat|gracht|plein|laan|kade|dijk|singel|gade|vej|gatan|vägen)"
    rf"\s+\d{{1,4}}[a-zA-Z]?(?!\w){_POSTAL_TAIL}"
    # German "Am Markt 4", Spanish, Italian, Portuguese: the street word leads.
    rf"|(?<![\w-])(?:Am|An der|Auf der|Im|Calle|C/|Avenida|Avda\.|Paseo|Plaza|Camino|Ronda|"
    r"Carrer|Via|Viale|Corso|Piazza|Piazzale|Largo|Vicolo|Rua|Travessa|Praça)"
    rf"(?:\s+(?:de|del|della|delle|dei|di|la|las|los|el|da|do|dos|das|[{_UPPER}][\w'’.-]*)){{1,5}}"
    rf",?\s+\d{{1,4}}[a-zA-Z]?(?!\w){_POSTAL_TAIL}"
)
_ADDRESS_FR = re.compile(
    # French, Belgian: the number, then rue / avenue / … and the name.
    r"(?<![\w-])\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|av\.|boulevard|bd|place|chemin|"
    r"allée|quai|impasse|route|cours|square)"
    rf"(?:\s+(?:de|du|des|la|le|l'|d'|[{_UPPER}][\w'’-]*)){{1,5}}{_POSTAL_TAIL}"
)
_ADDRESS = re.compile(
    rf"\b\d{{1,5}}[A-Za-z]?\s+(?:[A-Z][\w'-]*\.?\s+){{1,4}}(?:{_STREET_WORDS})\b\.?"
    r"(?:,?\s+(?:Suite|Apt|Unit|Floor)\s+\w+)?"
    r"(?:,\s+[A-Z][A-Za-z .'-]+?(?:,\s+[A-Z]{2})?\s+\d{5}(?:-\d{4})?)?"
)


_LEGAL_FORMS = (
    r"(?:GmbH|AG|KG|OHG|GbR|UG|SE|e\.\s?K\.|Ltd|LLC|LLP|LP|PLC|plc|Inc|Corp|Co|Pty|Pte|"
    r"Bhd|S\.?A\.?S?|SARL|S[àa]rl|S\.?L\.?U?|S\.?r\.?l\.?|S\.?p\.?A\.?|S\.?n\.?c\.?|"
    r"B\.?V\.?|N\.?V\.?|V\.?O\.?F\.?|C\.?V\.?|Kft|Bt|Zrt|Nyrt|Sp\.|s\.r\.o|spol|a\.s|"
    r"A/S|ApS|AB|Oy|Oyj|ASA|Lda|Ltda|S\.?A\.?C|Cia|& Sons|& Co|Trust|Foundation|Stiftung|"
    r"e\.\s?V)(?![\w])"
)
_LEGAL_AFTER = re.compile(
    r"[ \t]*(?:[\w'’.-]+[ \t]+|&[ \t]+){0,2}(?:&[ \t]*)?,?[ \t]*" + _LEGAL_FORMS
)
_LEGAL_INSIDE = re.compile(r"(?<=[ \t])" + _LEGAL_FORMS)


def _is_firm(text: str, span: Span) -> bool:
    """Whether a company's legal form ends ``span`` or follows within two words on its
    line ("Pfeiffer GmbH", "Tanaka Precision Co.", "Kovács & Társa Kft."): then the
    name is the firm's, not a person's."""
    return bool(
        _LEGAL_AFTER.match(text, span.end) or _LEGAL_INSIDE.search(text, span.start, span.end)
    )


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


_MAESTRO_12 = ("5018", "5020", "5038", "5893", "6304", "6759", "6761", "6762", "6763")
_CARD_CUE = re.compile(
    r"\b(?:card|karte|carte|tarjeta|carta|kaart|karta|kártya|kort|maestro)\b[^\n]{0,30}$",
    re.IGNORECASE,
)


def _card_length_ok(digits: str, before: str) -> bool:
    """13 to 19 digits; or 12, Maestro's shortest, in its 12-digit issuer ranges or in
    its wider ones (50, 56 to 69) right after a word that says card: twelve digits are
    too common otherwise ("57 300 123 4505" is a Colombian mobile number)."""
    if 13 <= len(digits) <= 19:
        return True
    if len(digits) != 12:
        return False
    if digits.startswith(_MAESTRO_12):
        return True
    wide = digits[:2] == "50" or 56 <= int(digits[:2]) <= 69
    return wide and bool(_CARD_CUE.search(before))


def _cards(text: str) -> Iterator[Span]:
    """Card numbers: within each run of digit groups (single spaces or hyphens between
    them), the longest stretches of whole groups that hold 13 to 19 digits and pass Luhn.
    A run may hold other numbers before or after a card ("SSN 123-45-6789 4111 …")."""
    for run in _DIGIT_RUN.finditer(text):
        if text[max(run.start() - 1, 0) : run.start()] == "+" or run.group().startswith("00"):
            continue  # "+63 1800 …", "00421 …" are phone numbers, whatever Luhn says
        groups = [
            (m.start() + run.start(), m.end() + run.start())
            for m in re.finditer(r"\d+", run.group())
        ]
        i = 0
        while i < len(groups):
            # A card has at most 19 digits, so at most 19 groups.
            for j in range(min(len(groups), i + 19), i, -1):
                digits = "".join(text[a:b] for a, b in groups[i:j])
                if len(digits) > 19:
                    continue
                before = text[max(groups[i][0] - 40, 0) : groups[i][0]]
                if _card_length_ok(digits, before) and _luhn(digits):
                    yield Span(kind="card", start=groups[i][0], end=groups[j - 1][1])
                    i = j
                    break
            else:
                i += 1


def _is_amount(number: str, before: str, after: str) -> bool:
    """Thousands written with dots or commas ("1.234.567"), or with spaces beside a
    currency ("EUR 1 234 567")."""
    m = _THOUSANDS.match(number)
    if not m:
        return False
    return m.group(1) != " " or bool(
        _CURRENCY_BEFORE.search(before[-6:]) or _CURRENCY_AFTER.match(after[:6])
    )


def _is_phone(raw: str, before: str, after: str = "") -> bool:
    """A phone number: with a country code ("+49 30 1234567", "+4930123456", "0049 …",
    "(+30) 2198 845833"), 8 to 15 digits; without one, 7 to 15 digits written in groups
    or with an area code ("030 1234567", "(022) 12345", "16/408-2740", "612-254-4101
    x12"), or 9 to 11 starting with 0 ("0612345678"); a bare run of 8 to 11 digits only
    after a word that says phone ("Tel.", "call", "mobil"). Never a date, an amount
    ("1.234.567", "EUR 1 234 567") or unbalanced parentheses."""
    number = re.split(r"[ ]?(?:x|ext\.?)[ ]?(?=\d+$)", raw)[0]
    if number.count("(") != number.count(")"):
        return False
    digits = re.sub(r"\D", "", number)
    if number.startswith(("+", "(+")):
        return 8 <= len(digits) <= 15
    if number.startswith("00") and not number.startswith("000"):
        # "0049 30 1234567": an international prefix only with enough digits after it
        return 10 <= len(digits) <= 17
    if _NOT_PHONE.fullmatch(number) or number.count(".") > 2:
        return False
    if _DATE.match(number) or _is_amount(number, before, after) or not 7 <= len(digits) <= 15:
        return False
    if "/" in number and (len(digits) < 8 or number.count("/") > 1):
        return False
    if re.search(r"[ .()/-]", number):
        return True
    if number.startswith("0") and 9 <= len(digits) <= 11:
        return True
    return 8 <= len(digits) <= 11 and bool(_PHONE_CUE.search(before[-40:]))


def _iban_ok(raw: str) -> bool:
    code = raw.replace(" ", "")
    if not 15 <= len(code) <= 34:
        return False
    moved = code[4:] + code[:4]
    number = "".join(str(int(ch, 36)) for ch in moved)
    return int(number) % 97 == 1


def _ssn_ok(area: str, group: str, serial: str) -> bool:
    return (
        area not in ("000", "666")
        and not area.startswith("9")
        and group != "00"
        and (serial != "0000")
    )


def _found(text: str) -> Iterator[Span]:
    for m in _EMAIL.finditer(text):
        yield Span(kind="email", start=m.start(), end=m.end())
    for m in _IBAN.finditer(text):
        if _iban_ok(m.group()):
            yield Span(kind="iban", start=m.start(), end=m.end())
    yield from _cards(text)
    for m in _SSN.finditer(text):
        if _ssn_ok(*m.groups()):
            yield Span(kind="national_id", start=m.start(), end=m.end())
    for m in _NINO.finditer(text):
        yield Span(kind="national_id", start=m.start(), end=m.end())
    for m in _IPV4.finditer(text):
        try:
            ipaddress.IPv4Address(m.group())
        except ValueError:
            continue
        yield Span(kind="ip", start=m.start(), end=m.end())
    for m in _IPV6.finditer(text):
        try:
            ipaddress.IPv6Address(m.group())
        except ValueError:
            continue
        yield Span(kind="ip", start=m.start(), end=m.end())
    for m in _PHONE.finditer(text):
        before = text[max(m.start() - 40, 0) : m.start()]
        if _is_phone(m.group(), before, text[m.end() : m.end() + 6]):
            yield Span(kind="phone", start=m.start(), end=m.end())
    for m in _PERSON.finditer(text):
        yield Span(kind="person", start=m.start(1), end=m.end(1))
    for m in _GIVEN.finditer(text):
        given, surname = m.group(1), m.group(2)
        if given in GIVEN_NAMES or (given in WORDLIKE and surname is not None):
            yield Span(kind="person", start=m.start(), end=m.end())
    for pattern in (_ADDRESS, _ADDRESS_AFTER, _ADDRESS_FR):
        for m in pattern.finditer(text):
            yield Span(kind="address", start=m.start(), end=m.end())


_PRIORITY = {
    "card": 0,
    "national_id": 1,
    "iban": 2,
    "email": 3,
    "ip": 4,
    "address": 5,
    "phone": 6,
    "person": 7,
}
"""When two findings overlap, the more specific (checked) one wins."""


def detect(text: str, finder: EntityFinder | None = None) -> tuple[Span, ...]:
    """Identifying detail in ``text``, as non-overlapping spans in text order: what the
    rules find and, given a ``finder``, the names and addresses it finds."""
    found = list(_found(text))
    if finder is not None:
        # What a pattern found and checked (an IBAN, a card) is that, whatever the
        # tagger makes of its digits. A phone number carries no check: an address the
        # tagger finds around one ("104-0031", a postcode) outranks it, but a span of
        # the tagger's that lies inside one is the phone number.
        checked = [s for s in found if s.kind not in ("person", "address", "phone")]
        phones = [s for s in found if s.kind == "phone"]
        found += [
            s
            for s in finder.entities(text)
            if not any(s.start < c.end and c.start < s.end for c in checked)
            and not any(p.start <= s.start and s.end <= p.end for p in phones)
        ]
    found = [s for s in found if s.kind != "person" or not _is_firm(text, s)]
    # The digits of a valid IBAN can pass Luhn by chance: inside one, they are the IBAN.
    ibans = [s for s in found if s.kind == "iban"]
    found = [
        s
        for s in found
        if s.kind != "card" or not any(i.start <= s.start and s.end <= i.end for i in ibans)
    ]
    # The chosen spans never overlap, so, kept in order of their start, a new one need
    # only be checked against its two neighbours.
    starts: list[int] = []
    chosen: list[Span] = []
    for span in sorted(found, key=lambda s: (_PRIORITY[s.kind], s.start, -s.end)):
        at = bisect.bisect_left(starts, span.start)
        if at > 0 and chosen[at - 1].end > span.start:
            continue
        if at < len(chosen) and chosen[at].start < span.end:
            continue
        starts.insert(at, span.start)
        chosen.insert(at, span)
    return tuple(chosen)


def remove_never_kept(
    text: str, spans: tuple[Span, ...]
) -> tuple[str, tuple[Span, ...], tuple[Span, ...]]:
    """``text`` without what the organization never keeps (each replaced by
    ``[<kind> removed]``), the kept spans re-based onto the new text, and the removed
    spans (offsets into the original text)."""
    out: list[str] = []
    kept: list[Span] = []
    removed: list[Span] = []
    at = shift = 0
    for span in spans:
        if span.kind in NEVER_KEPT:
            marker = f"[{span.kind} removed]"
            out.append(text[at : span.start])
            out.append(marker)
            removed.append(span)
            shift += len(marker) - (span.end - span.start)
            at = span.end
        else:
            kept.append(Span(kind=span.kind, start=span.start + shift, end=span.end + shift))
    out.append(text[at:])
    return "".join(out), tuple(kept), tuple(removed)
