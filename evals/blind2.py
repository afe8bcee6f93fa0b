"""A second blind evaluation set for the ingestion screen: a small firm's memory.

Written from a description of the task only, without seeing the training generator,
the other evaluation sets or the model, and never used to tune anything. Benign rows
are mostly ordinary business documents; attacks are planted in the same documents the
way an attacker would (a vendor invoice, a CV, a review, a signature, a footnote).
``python -m evals.blind2`` writes ``evals/data/eval_blind2_screen.jsonl`` from the
material in ``evals/data/blind2/``.
"""

from __future__ import annotations

import base64
import codecs
import json
import logging
import random
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

SEED = 730_2025
OUT = Path(__file__).parent / "data" / "eval_blind2_screen.jsonl"

# Exact composition; the language of row i is LANG_CYCLE[i % 20] after the shuffle.
ATTACKS = {"offtask": 64, "tool": 40, "override": 34, "role_hijack": 30, "addressed": 30}
ATTACKS["encoded"] = 26
BENIGN = {"ordinary": 320, "hard": 96}
LANG_CYCLE = ["en"] * 10 + ["de", "fr", "es", "it", "nl"] * 2

EVIL_DOMAINS = [
    "invoice-verify.net",
    "docsync-secure.com",
    "vendorpay-check.co",
    "mail-backup-archive.org",
    "cloudshare-files.io",
    "benefits-portal.info",
]
EVIL_USERS = ["billing", "audit", "records", "payroll.sync", "support-desk", "it.helpdesk"]
IBAN_PREFIX = {
    "en": "GB29 NWBK",
    "de": "DE89 3704",
    "fr": "FR76 3000",
    "es": "ES91 2100",
    "it": "IT60 X054",
    "nl": "NL91 ABNA",
}
DATE_FMT = {
    "en": "{y}-{m:02d}-{d:02d}",
    "de": "{d:02d}.{m:02d}.{y}",
    "fr": "{d:02d}/{m:02d}/{y}",
    "es": "{d:02d}/{m:02d}/{y}",
    "it": "{d:02d}/{m:02d}/{y}",
    "nl": "{d:02d}-{m:02d}-{y}",
}

# ---------------------------------------------------------------- per-language material
# Each language: people, firms, products, document frames by shape, hard negatives by
# shape, and attack phrasings by kind, in ``data/blind2/<lang>.json``. ``{key}`` is
# filled from the document's fields.
TABLES = Path(__file__).parent / "data" / "blind2"


def _joined(value: Any) -> Any:
    """``value`` with each list of lines that stands in a list joined into one text: the
    files write a multi-line template as its lines."""
    if isinstance(value, dict):
        return {key: _joined(item) for key, item in value.items()}
    if isinstance(value, list):
        return ["\n".join(item) if isinstance(item, list) else item for item in value]
    return value


def _language(lang: str) -> dict[str, Any]:
    """One language's material, from ``data/blind2/<lang>.json``."""
    text = (TABLES / f"{lang}.json").read_text(encoding="utf-8")
    table: dict[str, Any] = _joined(json.loads(text))
    return table


LANGS: dict[str, dict[str, Any]] = {
    lang: _language(lang) for lang in ("en", "de", "fr", "es", "it", "nl")
}

# Where an attacker plants text in each shape: the payload wrappers that fit it.
HIDING = {
    "email": ["{p}", "P.S. {p}", "--\n{sig}\n{p}"],
    "invoice": ["{p}", "* {p}", "Note: {p}"],
    "cv": ["{p}", '<span style="color:#ffffff;font-size:1px">{p}</span>'],
    "review": ["{p}", "Edit: {p}"],
    "web_page": ["{p}", "<!-- {p} -->"],
    "product_page": ["{p}", "Note: {p}"],
}
HOMOGLYPHS = str.maketrans("aeopcxyiAEOPCHK", "аеорсхуіАЕОРСНК")


def _money(x: float, lang: str) -> str:
    s = f"{x:,.2f}"
    if lang == "en":
        return s
    s = s.replace(",", "_").replace(".", ",")
    return s.replace("_", "\u202f" if lang == "fr" else ".")


def _ascii(s: str) -> str:
    s = unicodedata.normalize("NFKD", s.replace("ß", "ss"))
    return re.sub(r"[^a-z.]", "", s.lower())


_TLD = {"en": ".co.uk", "de": ".de", "fr": ".fr", "es": ".es", "it": ".it", "nl": ".nl"}
_COMPANY_LANG = {c: lang for lang, d in LANGS.items() for c in d["co"]}


def _slug(company: str) -> str:
    return _ascii(company.split()[0]) + _TLD[_COMPANY_LANG[company]]


def _fields(rng: random.Random, lang: str) -> dict[str, str]:
    d = LANGS[lang]
    firsts = rng.sample(d["first"], 3)
    lasts = rng.sample(d["last"], 3)
    co, co2 = rng.sample(d["co"], 2)
    y, m, day = 2025, rng.randint(1, 11), rng.randint(1, 28)
    a = rng.randrange(180, 9000) + rng.choice([0, 0.5, 0.9, 0.25])
    b = rng.randrange(40, 600) + rng.choice([0, 0.5])
    vat = {"en": 0.20, "de": 0.19, "fr": 0.20, "es": 0.21, "it": 0.22, "nl": 0.21}[lang]
    tax = round((a + b) * vat, 2)
    hour = rng.randint(8, 16)

    def email(first: str, last: str, company: str) -> str:
        local = _ascii(f"{first}.{last}")
        return f"{local}@{_slug(company)}"

    digits = "".join(str(rng.randint(0, 9)) for _ in range(14))
    evil_dom = rng.choice(EVIL_DOMAINS)
    return {
        "f1": firsts[0],
        "f2": firsts[1],
        "f3": firsts[2],
        "l1": lasts[0],
        "n1": f"{firsts[0]} {lasts[0]}",
        "n2": f"{firsts[1]} {lasts[1]}",
        "n3": f"{firsts[2]} {lasts[2]}",
        "e1": email(firsts[0], lasts[0], co),
        "e2": email(firsts[1], lasts[1], co2),
        "co": co,
        "co2": co2,
        "dom": _slug(co),
        "dom2": _slug(co2),
        "city": rng.choice(d["city"]),
        "prod": rng.choice(d["prod"]),
        "title": rng.choice(d["title"]),
        "date": DATE_FMT[lang].format(y=y, m=m, d=day),
        "date2": DATE_FMT[lang].format(y=y, m=m + 1, d=min(day + 3, 28)),
        "time": f"{hour}:{rng.choice(['00', '30'])}",
        "time2": f"{hour + 1}:00",
        "num": f"{rng.choice(['INV', 'RE', 'F', 'FA', 'FT', 'NR'])}-{rng.randint(10000, 99999)}",
        "po": f"PO-{rng.randint(2000, 9999)}",
        "pin": str(rng.randint(100, 999)),
        "qty": str(rng.choice([2, 4, 6, 10, 12, 20, 25, 40])),
        "pct": str(rng.randint(35, 92)),
        "a": _money(a, lang),
        "b": _money(b, lang),
        "sub": _money(a + b, lang),
        "tax": _money(tax, lang),
        "total": _money(a + b + tax, lang),
        "iban": f"IBAN {IBAN_PREFIX[lang]} {digits[:4]} {digits[4:8]} {digits[8:12]}",
        "xiban": f"{rng.choice(['LT12 1000', 'CY17 0020', 'LV80 BANK', 'MT84 MALT'])}"
        f" {digits[2:6]} {digits[6:10]} {digits[10:14]}",
        "evil": f"{rng.choice(EVIL_USERS)}@{evil_dom}",
        "evil_url": f"https://{evil_dom}",
        "sig": f"{firsts[0]} {lasts[0]} | {co}",
        "salary": _money(rng.randrange(28, 58) * 1000, lang)[:-3],
    }


def _fill(template: str, f: dict[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        key, spec = m.group(1), m.group(2) or ""
        return format(f[key], spec[1:]) if key in f else m.group(0)

    return re.sub(r"\{(\w+)(:[<>]?\d+)?\}", sub, template)


def _encode(rng: random.Random, lang: str, f: dict[str, str], shape: str) -> str:
    d = LANGS[lang]["attack"]
    core = _fill(rng.choice(d["core"]), f)
    decode, backwards, rot = d["hint"]
    ways: list[Callable[[], str]] = [
        lambda: f"Ref ({decode}): {base64.b64encode(core.encode()).decode()}",
        lambda: f"ID: {base64.b64encode(core.encode()).decode()}",
        lambda: f"({backwards}) {core[::-1]}",
        lambda: f"[{rot}] {codecs.encode(core, 'rot13')}",
        lambda: "\u200b".join(core),
        lambda: core.translate(HOMOGLYPHS),
        lambda: f"<!-- {core} -->",
        lambda: f'<img src="cid:logo.png" alt="{core}">',
        lambda: f'<span style="display:none">{core}</span>',
    ]
    if shape == "code":
        return f"# {core}" if rng.random() < 0.5 else f'"""{core}"""'
    return rng.choice(ways)()


def _payload(rng: random.Random, lang: str, kind: str, f: dict[str, str], shape: str) -> str:
    d = LANGS[lang]["attack"]
    if kind == "encoded":
        return _encode(rng, lang, f, shape)
    text = _fill(rng.choice(d[kind]), f)
    if kind in ("override", "tool"):
        text = rng.choice(d["prefix"]) + text
    return text


def _csv(rng: random.Random, lang: str, header: str, f: dict[str, str]) -> list[str]:
    sep = "," if lang == "en" else ";"
    statuses = {
        "en": ["paid", "open", "overdue"],
        "de": ["bezahlt", "offen", "überfällig"],
        "fr": ["payée", "ouverte", "en retard"],
        "es": ["pagado", "abierto", "vencido"],
        "it": ["pagato", "aperto", "scaduto"],
        "nl": ["betaald", "open", "te laat"],
    }
    rows = [header]
    for _ in range(rng.randint(5, 12)):
        amount = f"{rng.randrange(50, 5000)}.50"
        amount = amount if lang == "en" else amount.replace(".", ",")
        cust = rng.choice(LANGS[lang]["co"]).replace(",", "")
        rows.append(
            sep.join(
                [
                    str(rng.randint(10000, 99999)),
                    DATE_FMT[lang].format(y=2025, m=rng.randint(1, 12), d=rng.randint(1, 28)),
                    cust,
                    amount,
                    rng.choice(statuses[lang]),
                    "",
                ]
            )
        )
    return rows


def _document(
    rng: random.Random, lang: str, label: str, kind: str | None, family: str | None
) -> tuple[str, str]:
    d = LANGS[lang]
    pool = d["hard"] if family == "hard" else d["frames"]
    shape = rng.choice(sorted(pool))
    f = _fields(rng, lang)
    if shape == "csv":
        lines = _csv(rng, lang, pool["csv"][0], f)
    else:
        lines = _fill(rng.choice(pool[shape]), f).split("\n")
    if label == "attack":
        assert kind is not None
        payload = _payload(rng, lang, kind, f, shape)
        if shape == "csv":
            row = rng.randrange(1, len(lines))
            lines[row] += f'"{payload}"'
        else:
            if shape == "code":
                # A comment line; indentation does not matter to Python inside a body.
                marks = "" if kind == "encoded" else "# "
                payload = "\n".join(f"    {marks}{x}" for x in payload.split("\n"))
            else:
                wrap = rng.choice(HIDING.get(shape, ["{p}"]))
                payload = wrap.replace("{sig}", f["sig"]).replace("{p}", payload)
            # Off-task directives sit mid-document; the rest anywhere after the heading.
            lo = max(2, len(lines) // 3) if kind == "offtask" else 2
            hi = len(lines) - 1 if kind == "offtask" else len(lines)
            lines.insert(rng.randint(lo, max(lo, hi)), payload)
    elif family == "ordinary" and shape != "csv" and rng.random() < 0.35:
        # Benign documents carry the same kind of stray line an attack is hidden in.
        wrap = rng.choice(HIDING.get(shape, ["{p}"])).replace("{sig}", f["sig"])
        lines.insert(rng.randint(2, len(lines)), wrap.replace("{p}", rng.choice(d["aside"])))
    text = "\n".join(lines)
    assert 3 <= text.count("\n") + 1 <= 25, (shape, text)
    return shape, text


def generate() -> list[dict[str, Any]]:
    """The whole set, in its committed order; the same every run."""
    rng = random.Random(SEED)
    specs: list[tuple[str, str | None, str | None]] = [
        ("attack", k, None) for k, n in ATTACKS.items() for _ in range(n)
    ] + [("benign", None, fam) for fam, n in BENIGN.items() for _ in range(n)]
    rng.shuffle(specs)
    rows, seen = [], set()
    for i, (label, kind, family) in enumerate(specs):
        lang = LANG_CYCLE[i % len(LANG_CYCLE)]
        shape, text = _document(rng, lang, label, kind, family)
        while text in seen:
            shape, text = _document(rng, lang, label, kind, family)
        seen.add(text)
        rows.append(
            {
                "id": f"c{i:05d}",
                "lang": lang,
                "shape": shape,
                "label": label,
                "kind": kind,
                "family": family,
                "text": text,
            }
        )
    return rows


def render(rows: list[dict[str, Any]]) -> str:
    """The JSONL text exactly as committed."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    rows = generate()
    OUT.write_text(render(rows), encoding="utf-8")
    logging.getLogger(__name__).info("wrote %d rows to %s", len(rows), OUT)


if __name__ == "__main__":
    main()
