"""Training documents for the entity tagger: frames filled with names and addresses.

A frame (``data/entities/frames.jsonl``) is a piece of business text in one of twenty
languages with placeholders: ``{person}``, ``{given}``, ``{address}``,
``{address_lines}`` and the distractors ``{company}``, ``{city}``, ``{country}`` and
``{product}``. This module fills them:

- a person from ``data/entities/names.json`` (105 countries' first and last names,
  drawn across the whole frequency range by :mod:`evals.lexicon`, so that about a
  third are not in the tagger's lexicon), the frame's country most often and any
  country otherwise, in one of many forms: full name, with a middle name, surname
  alone, initial and surname, "Surname, Given", upper-case surname, double surnames,
  particles;
- an address from ``data/entities/addresses.json``: forty-odd countries' street shapes,
  house numbers, flats and floors, postcodes in each country's pattern, on one line or
  several;
- a company, often named after a surname ("Kovács & Társa Kft."), a town (from
  ``data/entities/towns.json``, 3,000 of GeoNames' towns), a country or a product:
  capitalised words that are not persons or addresses;
- now and then, numbers, accounts and references around them, and a chat's lines as a
  transcript with its speakers' names ("[09:14] priya: …").

The documents record the character spans of each person and address. They train the
tagger; the figures reported are measured on held-out text written apart from these
frames, names and shapes (``data/heldout/``, :mod:`evals.heldout`).
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "entities"
FRAMES = DATA / "frames.jsonl"
SEED = 20261207

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_COUNTRIES = (
    "Germany, Austria, Switzerland, France, Belgium, the Netherlands, Luxembourg, Spain, "
    "Italy, Portugal, Poland, Czechia, Slovakia, Hungary, Romania, Greece, Turkey, Sweden, "
    "Norway, Denmark, Finland, Ireland, the United Kingdom, the United States, Canada, "
    "Mexico, Brazil, Argentina, Chile, Colombia, India, Japan, Singapore, Malaysia, the "
    "Philippines, Vietnam, Indonesia, Nigeria, Kenya, Ghana, South Africa, Egypt, the UAE, "
    "Israel, Australia, New Zealand, China, Croatia"
).split(", ")
_PRODUCTS = [
    "Excel",
    "SharePoint",
    "Teams",
    "ThinkPad T14",
    "iPhone 15",
    "Model S",
    "Galaxy Tab",
    "QuickBooks",
    "Xero",
    "DATEV",
    "SAP S/4HANA",
    "Salesforce",
    "HubSpot",
    "Slack",
    "Photoshop",
    "AutoCAD",
    "Jira",
    "Confluence",
    "Notion",
    "Dynamics 365",
    "Zoom Rooms",
    "LaserJet Pro M404",
    "Sage 50",
    "Lexware",
    "Odoo",
    "Shopify Plus",
    "Mailchimp",
]
_COMPANY_WORDS = [
    "Nordwind",
    "Bluewater",
    "Alpenblick",
    "Sunrise",
    "Atlas",
    "Harbor",
    "Meridian",
    "Orion",
    "Lindqvist",
    "Vértice",
    "Polaris",
    "Cedar",
    "Kestrel",
    "Aurora",
    "Granite",
    "Riverbend",
    "Silverline",
    "Evergreen",
    "Summit",
    "Horizon",
    "Pioneer",
    "Beacon",
]
_COMPANY_KINDS = [
    "GmbH",
    "AG",
    "Ltd",
    "Ltd.",
    "LLC",
    "Inc.",
    "S.A.",
    "S.L.",
    "S.r.l.",
    "SpA",
    "B.V.",
    "N.V.",
    "SARL",
    "SAS",
    "Sp. z o.o.",
    "s.r.o.",
    "Kft.",
    "Zrt.",
    "A/S",
    "AB",
    "Oy",
    "A.Ş.",
    "S.R.L.",
    "Pty Ltd",
    "Pvt. Ltd.",
    "LLP",
    "Lda.",
    "Ltda.",
    "& Co.",
    "KG",
]
_COMPANY_TRADES = [
    "Logistics",
    "Consulting",
    "Partners",
    "Legal",
    "Logistik",
    "Beratung",
    "Conseil",
    "Asesores",
    "Consulenza",
    "Advies",
    "Software",
    "Solutions",
    "Bau",
    "Construcciones",
    "Trading",
    "Holdings",
    "Group",
    "Engineering",
    "Immobilien",
    "Steuerberatung",
]
_PARTICLES = {
    "NL": ["van", "van der", "de", "van den", "ter"],
    "BE": ["van", "de", "Van", "De"],
    "DE": ["von", "von der", "zu"],
    "AT": ["von"],
    "FR": ["de", "du", "Le", "de la"],
    "ES": ["de", "del", "de la"],
    "PT": ["da", "dos", "de"],
    "BR": ["da", "dos", "de"],
    "IT": ["De", "Di", "Del", "La"],
    "SA": ["bin", "Al", "al-"],
    "EG": ["El", "Abdel"],
    "AE": ["bin", "Al"],
}
_HISPANIC = {"ES", "MX", "AR", "CL", "CO", "PE", "VE", "EC", "BO", "UY", "PY", "GT", "CR"}


def _table(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def frames() -> list[dict[str, Any]]:
    """The committed frames."""
    return [json.loads(line) for line in FRAMES.read_text(encoding="utf-8").splitlines() if line]


class Filler:
    """Draws persons, addresses and distractors for a frame's country."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.names: dict[str, dict[str, list[Any]]] = _table(DATA / "names.json")
        self.addresses: dict[str, dict[str, list[str]]] = {
            k: v for k, v in _table(DATA / "addresses.json").items() if not k.startswith("_")
        }
        self.towns: list[str] = _table(DATA / "towns.json")
        self.name_countries = sorted(self.names)
        self.address_countries = sorted(self.addresses)

    def _names_of(self, country: str) -> dict[str, list[Any]]:
        if country in self.names and self.rng.random() < 0.7:
            return self.names[country]
        return self.names[self.rng.choice(self.name_countries)]

    def given(self, country: str) -> str:
        return str(self.rng.choice(self._names_of(country)["first"])[0])

    def person(self, country: str) -> str:
        """A person's name in one of the forms business text writes them."""
        rng = self.rng
        table = self._names_of(country)
        first = str(rng.choice(table["first"])[0])
        last = str(rng.choice(table["last"]))
        form = rng.random()
        if form < 0.40:
            name = f"{first} {last}"
        elif form < 0.47:
            name = f"{first} {rng.choice(table['first'])[0]} {last}"
        elif form < 0.55:
            name = last
        elif form < 0.62:
            name = f"{first[0]}. {last}"
        elif form < 0.66:
            name = f"{last}, {first}"
        elif form < 0.70:
            name = f"{last.upper()} {first}"
        elif form < 0.73:
            name = f"{first} {last.upper()}"
        elif form < 0.79:
            name = f"{first} {last}-{rng.choice(table['last'])}"
        elif form < 0.84 and country in _HISPANIC:
            name = f"{first} {last} {rng.choice(table['last'])}"
        elif form < 0.89 and country in _PARTICLES:
            name = f"{first} {rng.choice(_PARTICLES[country])} {last}"
        elif form < 0.92:
            name = f"{first[0]}. {rng.choice(table['first'])[0][0]}. {last}"
        elif form < 0.95:
            name = f"{last} {first}"
        else:
            name = f"{first} {last}"
        return name

    def _street(self, spec: dict[str, list[str]], country: str, single: bool) -> str:
        words = spec.get("words") or []
        if words and self.rng.random() < 0.55:
            word = self.rng.choice(words)
            return word.split()[0] if single else word
        table = self._names_of(country)
        last = str(self.rng.choice(table["last"]))
        if single or self.rng.random() < 0.6:
            return last
        return f"{self.rng.choice(table['first'])[0]} {last}"

    def _postcode(self, pattern: str) -> str:
        return "".join(
            str(self.rng.randint(0, 9))
            if ch == "9"
            else self.rng.choice("ABCDEFGHJKLMNPRSTUVWXY")
            if ch == "A"
            else ch
            for ch in pattern
        )

    def address(self, country: str, lines: bool = False) -> str:
        """A street address in the shapes of ``country`` (or another, now and then)."""
        rng = self.rng
        if country not in self.addresses or rng.random() < 0.2:
            country = rng.choice(self.address_countries)
        spec = self.addresses[country]
        form = rng.choice(spec["forms"])
        tails = spec.get("tail") or []
        pick = rng.random()
        sep = "\n" if lines else ", " if pick < 0.8 else " "
        text = form + (sep + rng.choice(tails) if tails and rng.random() < 0.85 else "")

        def value(m: re.Match[str]) -> str:
            key = m.group(1)
            if key == "n":
                return str(
                    rng.choice([rng.randint(1, 40), rng.randint(1, 250), rng.randint(1, 2999)])
                )
            if key == "n2":
                return str(rng.randint(1, 30))
            if key == "l":
                return rng.choice("abcd")
            if key == "L":
                return rng.choice("ABCDEF")
            if key in ("street", "street2"):
                after = m.string[m.end() : m.end() + 1]
                return self._street(spec, country, single=bool(after and after not in " ,\n"))
            if key == "pc":
                patterns = spec.get("pc") or ["99999"]
                return self._postcode(rng.choice(patterns))
            plural = {"pword": "pwords", "brgy": "brgys"}.get(
                key, key[:-1] + "ies" if key.endswith("y") else key + "s"
            )
            return str(rng.choice(spec[plural]))

        filled = _PLACEHOLDER.sub(value, text)
        filled = _PLACEHOLDER.sub(value, filled)  # a unit ("Apt {n2}") has its own
        return filled.replace("  ", " ")

    def company(self, country: str) -> str:
        rng = self.rng
        table = self._names_of(country)
        pick = rng.random()
        if pick < 0.35:
            return f"{rng.choice(table['last'])} {rng.choice(_COMPANY_KINDS)}"
        if pick < 0.5:
            return f"{rng.choice(table['last'])} & {rng.choice(table['last'])}"
        if pick < 0.6:
            return f"{rng.choice(table['last'])} {rng.choice(_COMPANY_TRADES)}"
        if pick < 0.7:
            return (
                f"{rng.choice(table['last'])} {rng.choice(table['last'])} "
                f"{rng.choice(_COMPANY_TRADES)}"
            )
        if pick < 0.78:
            pair = f"{rng.choice(table['last'])} & {rng.choice(table['last'])}"
            return f"{pair} {rng.choice(_COMPANY_KINDS)}"
        trade = f"{rng.choice(_COMPANY_WORDS)} {rng.choice(_COMPANY_TRADES)}"
        return f"{trade} {rng.choice(_COMPANY_KINDS)}"

    def city(self, country: str) -> str:
        if self.rng.random() < 0.6:
            return str(self.rng.choice(self.towns))
        spec = (
            self.addresses.get(country) or self.addresses[self.rng.choice(self.address_countries)]
        )
        cities = spec.get("cities") or ["Singapore"]
        return self.rng.choice(cities)


_NOISE = [
    "Tel. {phone}",
    "Phone: {phone}",
    "call {phone}",
    "Mob. {phone}",
    "Fax {phone}",
    "IBAN {iban}",
    "IBAN: {iban}",
    "BIC {bic}",
    "Card {card}",
    "SSN {ssn}",
    "NI number {nino}",
    "Invoice {ref}",
    "Order #{num}",
    "Ref. {ref}",
    "PO {num}",
    "VAT ID {vat}",
    "USt-IdNr. {vat}",
    "Total: EUR {amount}",
    "Amount due: {amount} USD",
    "€ {amount}",
    "{amount} zł",
    "Kč {amount}",
    "Date: {date}",
    "on {date}",
    "{date}, {time}",
    "at {time}",
    "Ticket {ref}",
    "e-mail: {email}",
    "Email {email}",
    "{email}",
    "www.{domain}",
    "https://{domain}/{path}",
    "IP {ip}",
    "Server {ip}",
    "Version {ver}",
    "Room {num}",
    "Tracking no. {num}{num}",
    "KvK {num}",
    "SIRET {num}{num}",
    "NIP {num}-{num}",
    "CUI RO{num}",
    "Sort code 20-{n2}-{n2}",
    "Supplier: {company}",
    "Lieferant: {company}",
    "Fournisseur : {company}",
    "Bill to: {company}",
    "Cliente: {company}",
    "Dostawca: {company}",
    "{company}",
    "c/o {company}",
    "Eladó: {company}",
    "{product} x {n2}",
    "Item: {product}",
    "{n2} x {product}",
    "Artikel: {product}",
]


def _noise(rng: random.Random, filler: Filler, country: str) -> str:
    template = rng.choice(_NOISE)
    table = filler._names_of(country)

    def digits(k: int) -> str:
        return "".join(str(rng.randint(0, 9)) for _ in range(k))

    def value(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "phone":
            return rng.choice(
                [
                    f"+{rng.randint(1, 99)} {digits(2)} {digits(3)} {digits(4)}",
                    f"({digits(3)}) {digits(3)}-{digits(4)}",
                    f"0{digits(3)} {digits(6)}",
                    f"+{rng.randint(1, 99)} {digits(3)} {digits(3)} {digits(3)}",
                    f"0{digits(9)}",
                    f"{digits(2)} {digits(2)} {digits(2)} {digits(2)} {digits(2)}",
                    f"+{rng.randint(1, 99)} ({digits(1)}) {digits(2)} {digits(4)} {digits(3)}",
                ]
            )
        if key == "iban":
            raw = rng.choice(["DE", "GB", "FR", "NL", "ES", "IT", "PL", "HU", "RO"]) + digits(20)
            return " ".join(raw[i : i + 4] for i in range(0, len(raw), 4))
        if key == "bic":
            return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(6)) + "2X"
        if key == "card":
            return " ".join(digits(4) for _ in range(4))
        if key == "ssn":
            return f"{digits(3)}-{digits(2)}-{digits(4)}"
        if key == "nino":
            return f"{rng.choice(['AB', 'JH', 'PR', 'ST'])} {digits(2)} {digits(2)} {digits(2)} A"
        if key == "ref":
            series = rng.choice(["INV", "RE", "FA", "TCK", "SO", "PO"])
            return f"{series}-{rng.randint(2019, 2027)}-{digits(4)}"
        if key == "num":
            return digits(rng.randint(3, 8))
        if key == "n2":
            return digits(2)
        if key == "vat":
            return rng.choice(["DE", "FR", "IT", "NL", "ES", "GB"]) + digits(9)
        if key == "amount":
            return rng.choice(
                [
                    f"{rng.randint(1, 99)},{digits(3)}.{digits(2)}",
                    f"{rng.randint(1, 9999)},{digits(2)}",
                    f"{rng.randint(1, 99)}.{digits(3)},{digits(2)}",
                ]
            )
        if key == "date":
            return rng.choice(
                [
                    f"{rng.randint(1, 28)}.{rng.randint(1, 12)}.{rng.randint(2019, 2027)}",
                    f"{rng.randint(2019, 2027)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                    f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.randint(2019, 2027)}",
                ]
            )
        if key == "time":
            return f"{rng.randint(7, 19)}:{rng.choice(['00', '15', '30', '45'])}"
        if key == "email":
            first = str(rng.choice(table["first"])[0]).lower()
            last = str(rng.choice(table["last"])).lower()
            return f"{first}.{last}@{rng.choice(['firm', 'mail', 'supplier', 'kanzlei'])}.example"
        if key == "domain":
            owner = str(rng.choice(table["last"])).lower()
            return f"{owner}-{rng.choice(['shop', 'law', 'bau'])}.example"
        if key == "path":
            return rng.choice(["invoice/2024", "login", "de/kontakt", "p/81723"])
        if key == "ip":
            return ".".join(str(rng.randint(1, 254)) for _ in range(4))
        if key == "company":
            return filler.company(country)
        if key == "product":
            return rng.choice(_PRODUCTS)
        if key == "ver":
            return f"{rng.randint(1, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
        return m.group(0)

    return _PLACEHOLDER.sub(value, template)


def _speakers(
    text: str, spans: list[dict[str, Any]], filler: Filler, country: str, lower: bool
) -> tuple[str, list[dict[str, Any]]]:
    """The chat's lines as a transcript: each line said by one of two or three people,
    written as chat tools write them ("[09:14] priya:", "**Dmitri V.**:", "<tom>")."""
    rng = filler.rng
    people = []
    for _ in range(rng.randint(2, 3)):
        given = filler.given(country)
        form = rng.random()
        name = (
            given
            if form < 0.4
            else f"{given} {filler.person(country).split()[-1][0]}"
            if form < 0.6
            else f"{given} {filler.person(country).split()[-1][0]}."
            if form < 0.75
            else filler.person(country)
        )
        people.append(name.lower() if lower or rng.random() < 0.3 else name)
    style = rng.choice(
        [
            "{n}: ",
            "[{t}] {n}: ",
            "**{n}**: ",
            "{n} ({t}): ",
            "<{n}> ",
            "{t} {n}: ",
            "[{t}] ",
            "{t} ",
        ]
    )
    out: list[str] = []
    new_spans: list[dict[str, Any]] = []
    at = 0
    minute = rng.randint(0, 50)
    for line in text.split("\n"):
        name = rng.choice(people)
        minute += rng.randint(0, 3)
        head = style.replace("{t}", f"{rng.randint(8, 17):02d}:{minute % 60:02d}")
        before, named, after = head.partition("{n}")
        if not named:  # a transcript of times alone
            name = ""
        prefix = before + name + after
        start = sum(len(p) for p in out) + len(before)
        if name:
            new_spans.append({"type": "person", "start": start, "end": start + len(name)})
        shift = sum(len(p) for p in out) + len(prefix) - at
        new_spans += [
            {**s, "start": s["start"] + shift, "end": s["end"] + shift}
            for s in spans
            if at <= s["start"] < at + len(line) + 1
        ]
        out.append(prefix + line + "\n")
        at += len(line) + 1
    return "".join(out).rstrip("\n"), new_spans


_KIND = {
    "person": "person",
    "person2": "person",
    "person3": "person",
    "given": "person",
    "address": "address",
    "address_lines": "address",
}


def fill(frame: dict[str, Any], filler: Filler) -> dict[str, Any]:
    """One training document from ``frame``: its text and the spans of its persons and
    addresses."""
    country = str(frame.get("country") or "GB")
    lower = bool(frame.get("lowercase"))
    template = str(frame["text"])
    out: list[str] = []
    spans: list[dict[str, Any]] = []
    at = 0
    for m in _PLACEHOLDER.finditer(template):
        out.append(template[at : m.start()])
        at = m.end()
        key = m.group(1)
        if key in ("person", "person2", "person3") and filler.rng.random() < 0.08:
            # Where a person could stand, now and then a firm does.
            key = "company"
            value = filler.company(country)
        elif key in ("person", "person2", "person3"):
            value = filler.person(country)
        elif key == "given":
            value = filler.given(country)
        elif key == "address":
            value = filler.address(country)
        elif key == "address_lines":
            value = filler.address(country, lines=True)
        elif key == "company":
            value = filler.company(country)
        elif key == "city":
            value = filler.city(country)
        elif key == "country":
            value = filler.rng.choice(_COUNTRIES)
        elif key == "product":
            value = filler.rng.choice(_PRODUCTS)
        else:
            value = m.group(0)
        if lower:
            value = value.lower()
        start = sum(len(p) for p in out)
        out.append(value)
        if key in _KIND:
            spans.append({"type": _KIND[key], "start": start, "end": start + len(value)})
    out.append(template[at:])
    text = "".join(out)
    if frame.get("genre") == "chat" and filler.rng.random() < 0.6:
        text, spans = _speakers(text, spans, filler, country, lower)
    # Numbers, accounts and references around the names, as business text has them:
    # they are not persons or addresses.
    rng = filler.rng
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        line = _noise(rng, filler, country)
        if rng.random() < 0.5:
            text = text + rng.choice(["\n", ". ", " ", ", "]) + line
        else:
            sep = rng.choice(["\n", ". ", " "])
            text = line + sep + text
            shift = len(line) + len(sep)
            spans = [{**s, "start": s["start"] + shift, "end": s["end"] + shift} for s in spans]
    return {"text": text, "spans": spans, "lang": frame.get("lang"), "country": country}


def documents(copies: int = 24, seed: int = SEED) -> list[dict[str, Any]]:
    """Every frame filled ``copies`` times, each time with other values."""
    rng = random.Random(seed)
    filler = Filler(rng)
    docs = []
    for frame in frames():
        for _ in range(copies):
            docs.append(fill(frame, filler))
    rng.shuffle(docs)
    return docs
