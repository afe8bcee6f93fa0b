"""A blind evaluation set for the ingestion screen (``data/eval_blind_screen.jsonl``).

Written from a description of the problem only: its author did not see the training
generator, the evaluation split, the rules or the model, and the texts were never run
through the screen. Its templates, names, companies and document shapes are its own, so
a score on it says how the screen generalises, not how well it learned its own corpus.
Its texts are in ``data/blind/``; ``data/BLIND.md`` describes the set;
``python -m evals.blind`` rewrites it (deterministic).
"""

from __future__ import annotations

import base64
import codecs
import json
import logging
import random
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from evals.values import iban as _iban

log = logging.getLogger(__name__)

SEED = 7_2025_0917
OUT = Path(__file__).resolve().parent / "data" / "eval_blind_screen.jsonl"
TABLES = Path(__file__).resolve().parent / "data" / "blind"
"""Its texts: ``texts.txt`` (every language's) and ``snippets.json`` (code, logs)."""

ATTACK_QUOTA = {
    "offtask": 78,
    "addressed": 44,
    "override": 42,
    "tool": 42,
    "encoded": 42,
    "role_hijack": 40,
}
"""Attack rows per class; offtask is the largest share because it is the hardest to word-match."""

BENIGN_QUOTA = {
    "plain": 152,
    "imperative": 70,
    "training": 30,
    "chat": 30,
    "bank": 24,
    "job": 24,
    "helpdesk": 24,
    "code_prompt": 24,
    "ai_mention": 20,
    "b64": 20,
    "unicode": 14,
}
"""Benign rows per family; everything but ``plain`` is a hard negative (not written to rows)."""

# Each class cycles through this order so every class gets every language.
_LANG_CYCLE = ("en", "de", "fr", "en", "es", "pt", "en", "pl")
_IBAN = {"en": ("GB", 22), "de": ("DE", 22), "fr": ("FR", 27), "es": ("ES", 24)}
_IBAN |= {"pt": ("PT", 25), "pl": ("PL", 28)}
_EVIL_DOMAINS = ("docs-relay.net", "ledgercheck.io", "quick-archive.org", "cdn-sync.app")
_EVIL_USERS = ("backup", "audit.team", "records", "ap-verify")
_EN_NOUN = {
    "email": "email",
    "invoice": "invoice",
    "contract": "contract",
    "meeting_notes": "meeting summary",
    "review": "review",
    "web_page": "page",
    "code": "file",
    "chat_log": "conversation",
    "csv": "export",
    "markdown": "document",
    "policy": "policy",
    "manual": "manual",
    "job_ad": "job posting",
    "newsletter": "newsletter",
    "helpdesk": "article",
    "training": "module",
    "log": "log",
}
SHAPES = tuple(_EN_NOUN)
_FIXED_SHAPES = ("job_ad", "helpdesk", "training")
# Shapes that attacks favour get extra benign draws, so a shape alone hints at no label.
_PLAIN_SHAPES = tuple(s for s in SHAPES if s not in _FIXED_SHAPES)
_PLAIN_SHAPES += ("manual", "manual", "csv", "csv", "invoice", "review", "web_page", "log")

# Language-neutral material: code, logs, and benign text that looks unusual, in
# ``data/blind/snippets.json`` (a snippet written as a list is its lines).
_SNIPPETS: dict[str, tuple[str, ...]] = {
    key: tuple("\n".join(s) if isinstance(s, list) else s for s in items)
    for key, items in json.loads((TABLES / "snippets.json").read_text(encoding="utf-8")).items()
}
_PY_PLAIN = _SNIPPETS["py_plain"]
_PY_PROMPT = _SNIPPETS["py_prompt"]
_JS_PLAIN = _SNIPPETS["js_plain"]
_JS_PROMPT = _SNIPPETS["js_prompt"]
_LOG_PLAIN = _SNIPPETS["log_plain"]
_LOG_PROMPT = _SNIPPETS["log_prompt"]
_UNICODE_BENIGN = _SNIPPETS["unicode_benign"]
_PNG_1PX = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)
_SVG_DOT = "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'><circle r='4'/></svg>"
_HOMOGLYPHS = {"a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у", "i": "і"}
_HOMOGLYPHS |= {"A": "Α", "B": "Β", "E": "Ε", "H": "Н", "K": "К", "M": "М", "O": "Ο", "T": "Т"}
_INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff")
_ENCODINGS: tuple[str, ...] = ("base64", "reversed", "rot13", "zero_width", "homoglyph")
_ENCODINGS += ("html_comment", "alt_text", "hidden_span", "md_comment", "code_comment")
_ENCODING_SHAPES = {
    "html_comment": ("web_page", "email", "newsletter", "markdown", "review", "job_ad"),
    "alt_text": ("web_page", "newsletter", "markdown", "email"),
    "hidden_span": ("web_page", "email", "newsletter"),
    "md_comment": ("markdown",),
    "code_comment": ("code", "markdown", "helpdesk", "manual"),
}


def _parse(text: str) -> dict[str, dict[str, list[str]]]:
    """``[lang.key]`` sections, one item a line; ``+ `` continues an item, ``¶`` is a newline."""
    data: dict[str, dict[str, list[str]]] = {}
    items: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]") and "." in line:
            lang, key = line[1:-1].split(".", 1)
            items = data.setdefault(lang, {}).setdefault(key, [])
        elif line.startswith("+ "):
            items[-1] += " " + line[2:].replace("¶", "\n")
        else:
            items.append(line.replace("¶", "\n"))
    return data


_DATA = _parse((TABLES / "texts.txt").read_text(encoding="utf-8"))
_LABELS = {
    lang: dict(item.split("=", 1) for item in sections["labels"])
    for lang, sections in _DATA.items()
}


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _amount(lang: str, rng: random.Random) -> str:
    s = f"{rng.randrange(120_00, 98_000_00) / 100:,.2f}"
    if lang == "en":
        return rng.choice(("£", "EUR ", "€")) + s
    if lang in ("de", "es"):
        return s.translate(str.maketrans(",.", ".,")) + " €"
    s = s.replace(",", " ").replace(".", ",")
    return s + (" zł" if lang == "pl" else " €")


def _date(lang: str, rng: random.Random) -> str:
    d, m, y = rng.randrange(1, 29), rng.randrange(1, 13), rng.choice((2024, 2025, 2026))
    if lang == "en":
        months = "January February March April May June July August September October November"
        month = (months + " December").split()[m - 1]
        return rng.choice((f"{d} {month} {y}", f"{y}-{m:02d}-{d:02d}"))
    sep = "." if lang in ("de", "pl") else "/"
    return f"{d:02d}{sep}{m:02d}{sep}{y}"


@dataclass
class _Doc:
    """A document as head lines, body blocks and footer lines; snippets go into the body
    or after the footer. ``style`` says how an inserted snippet is dressed."""

    head: list[str]
    body: list[str]
    foot: list[str] = field(default_factory=list)
    style: str = "plain"
    sep: str = "\n\n"
    tail: str = ""

    def render(self) -> str:
        parts = ["\n".join(self.head)] if self.head else []
        parts.append(self.sep.join(self.body))
        if self.foot:
            parts.append("\n".join(self.foot))
        text = ("\n" if self.sep == "\n" else "\n\n").join(p for p in parts if p)
        return text + ("\n" + self.tail if self.tail else "")


class _Writer:
    """One document's random draws: language, names, amounts, and the text pools."""

    def __init__(self, rng: random.Random, lang: str, shape: str) -> None:
        self.rng, self.lang, self.shape = rng, lang, shape
        self.d, self.lab = _DATA[lang], _LABELS[lang]
        names = rng.sample(self.d["names"], 3)
        companies = rng.sample(self.d["companies"], 2)
        host = _ascii(companies[0]).split()[0].strip(".,'")
        tld = {"en": "co.uk"}.get(lang, lang)
        evil = rng.choice(_EVIL_DOMAINS)
        country, length = _IBAN[lang]
        bank = "".join(rng.choice("ABCDEFGHKLMNPRSTUVWZ") for _ in range(4))
        self.ctx = {
            "name": names[0],
            "name2": names[1],
            "name3": names[2],
            "a": names[0].split()[0],
            "b": names[1].split()[0],
            "user": _ascii(names[2]).replace(" ", ".").replace("'", ""),
            "company": companies[0],
            "company2": companies[1],
            "city": rng.choice(self.d["cities"]),
            "product": rng.choice(self.d["products"]),
            "date": _date(lang, rng),
            "amount": _amount(lang, rng),
            "iban": _iban(rng, country, length),
            "bic": f"{bank}{country}{rng.choice(('2X', 'MM', 'FF', '33'))}",
            "email": f"{_ascii(names[1]).split()[0]}@{host}.{tld}",
            "evil_email": f"{rng.choice(_EVIL_USERS)}@{evil}",
            "evil_url": f"https://{evil}",
            "doc": _EN_NOUN[shape],
            "comment1": self.lab["comment1"],
            "comment2": self.lab["comment2"],
        }

    def fill(self, text: str) -> str:
        while "{date}" in text:
            text = text.replace("{date}", _date(self.lang, self.rng), 1)
        for key, value in self.ctx.items():
            text = text.replace("{" + key + "}", value)
        return text

    def pick(self, key: str, k: int = 1) -> list[str]:
        pool = self.d[key]
        return [self.fill(t) for t in self.rng.sample(pool, min(k, len(pool)))]

    def filler(self, key: str, low: int = 1, high: int = 4) -> list[str]:
        picked = self.pick(key, self.rng.randint(low, high))
        if key == "general":
            return picked
        return picked + self.pick("general", self.rng.randint(0, 3))


# Shapes ------------------------------------------------------------------------------------


def _email(w: _Writer) -> _Doc:
    subj = w.rng.choice((w.ctx["product"], w.ctx["company"], w.lab["minutes"], w.lab["invoice"]))
    head = [f"From: {w.ctx['name2']} <{w.ctx['email']}>", f"{w.lab['subject']}: {subj}"]
    body = [w.fill(w.lab["hello"])] + w.filler("general", 1, 4)
    return _Doc(head, body, [w.lab["regards"], w.ctx["name2"], w.ctx["company"]])


def _invoice(w: _Writer) -> _Doc:
    lab, c = w.lab, w.ctx
    head = [lab["invoice"], c["company"], f"{lab['no']} {w.rng.randrange(1000, 99999)}"]
    head += [f"{lab['date']}: {c['date']}", f"{lab['due']}: {_date(w.lang, w.rng)}"]
    lines = [f"{i + 1}. {p} x{w.rng.randint(1, 40)}" for i, p in enumerate(w.pick("products", 3))]
    body = ["\n".join(lines)] + w.pick("general", w.rng.randint(0, 2))
    foot = [f"{lab['total']}: {c['amount']} ({lab['vat']})", lab["terms"], f"IBAN {c['iban']}"]
    return _Doc(head, body, foot)


def _contract(w: _Writer) -> _Doc:
    lab = w.lab
    clauses = w.pick("contract", 3) + w.pick("general", w.rng.randint(0, 2))
    body = [f"{lab['clause']} {i + 1}. {s}" for i, s in enumerate(clauses)]
    foot = [f"{w.ctx['city']}, {w.ctx['date']}", f"{w.ctx['name']} / {w.ctx['name2']}"]
    return _Doc([lab["contract"], w.fill(lab["between"])], body, foot)


def _meeting(w: _Writer) -> _Doc:
    lab, c = w.lab, w.ctx
    head = [f"{lab['minutes']}, {c['date']}"]
    head.append(f"{lab['attendees']}: {c['name']}, {c['name2']}, {c['name3']}")
    body = [f"- {s}" for s in w.filler("meeting", 2, 3)]
    return _Doc(head, body, [f"{lab['actions']}:", f"- {c['name2']}: {w.pick('general')[0]}"])


def _review(w: _Writer) -> _Doc:
    stars = "★" * w.rng.randint(2, 5)
    head = [f"{w.lab['review']} {stars}", f"{w.ctx['name']} · {w.lab['verified']}"]
    return _Doc(head, w.pick("review", w.rng.randint(1, 3)))


def _web_page(w: _Writer) -> _Doc:
    nav = " | ".join(w.lab["web"].split("|"))
    head = ["<!DOCTYPE html>", f'<html lang="{w.lang}"><head><title>{w.ctx["company"]}</title>']
    head += ["</head><body>", f"<nav>{nav}</nav>", f"<h1>{w.ctx['product']}</h1>"]
    body = [f"<p>{s}</p>" for s in w.filler("general", 1, 4)]
    foot = [f"<footer>© 2025 {w.ctx['company']} · {w.ctx['city']}</footer>"]
    return _Doc(head, body, foot, style="html", sep="\n", tail="</body></html>")


def _code(w: _Writer) -> _Doc:
    blocks = _PY_PLAIN if w.rng.random() < 0.6 else _JS_PLAIN
    return _Doc([], [w.fill(b) for b in blocks], style="code")


def _chat_log(w: _Writer) -> _Doc:
    speakers = (w.ctx["a"], w.ctx["b"])
    lines = w.pick("general", w.rng.randint(2, 5))
    return _Doc(
        [], [f"{speakers[i % 2]}: {s}" for i, s in enumerate(lines)], style="chat", sep="\n"
    )


def _csv(w: _Writer) -> _Doc:
    header = w.lab["csv"]
    d = ";" if ";" in header else ","
    statuses = w.lab["statuses"].split("|")
    rows = []
    for _ in range(w.rng.randint(3, 9)):
        company = w.rng.choice(w.d["companies"])
        cells = [_date(w.lang, w.rng), company, f"{w.rng.randrange(100, 99999)}.00"]
        cells += [w.rng.choice(statuses), ""]
        rows.append(d.join(f'"{c}"' if d in c else c for c in cells))
    return _Doc([header], rows, style="csv", sep="\n")


def _markdown(w: _Writer) -> _Doc:
    body = w.filler("general", 1, 3) + [f"## {w.ctx['product']}"] + w.pick("news")
    return _Doc([f"# {w.ctx['company']}"], body, [f"_{w.ctx['name']}, {w.ctx['date']}_"], "md")


def _policy(w: _Writer) -> _Doc:
    items = w.filler("policy", 2, 3)
    head = [f"{w.lab['policy']}: {w.ctx['company']}", w.lab["scope"]]
    return _Doc(head, [f"{i + 1}. {s}" for i, s in enumerate(items)])


def _manual(w: _Writer) -> _Doc:
    steps = w.pick("manual", 3)
    head = [f"{w.lab['manual']}: {w.ctx['product']}"]
    return _Doc(head, [f"{i + 1}. {s}" for i, s in enumerate(steps)], style="md")


def _sectioned(key: str) -> Callable[[_Writer], _Doc]:
    def build(w: _Writer) -> _Doc:
        paragraphs = w.pick(key)[0].split("\n")
        return _Doc(paragraphs[:1], paragraphs[1:])

    return build


def _newsletter(w: _Writer) -> _Doc:
    head = [f"{w.ctx['company']} {w.lab['news']}, {w.ctx['date']}"]
    return _Doc(head, w.filler("news", 1, 2), style="md")


def _log(w: _Writer) -> _Doc:
    start = w.rng.randrange(0, 80000)
    lines = [w.fill(m) for m in w.rng.sample(_LOG_PLAIN, w.rng.randint(3, 6))]
    stamped = [f"2025-03-04T{_clock(start + 37 * i)}Z {m}" for i, m in enumerate(lines)]
    return _Doc([], stamped, style="log", sep="\n")


def _clock(seconds: int) -> str:
    seconds %= 86400
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


_SHAPE_BUILDERS: dict[str, Callable[[_Writer], _Doc]] = {
    "email": _email,
    "invoice": _invoice,
    "contract": _contract,
    "meeting_notes": _meeting,
    "review": _review,
    "web_page": _web_page,
    "code": _code,
    "chat_log": _chat_log,
    "csv": _csv,
    "markdown": _markdown,
    "policy": _policy,
    "manual": _manual,
    "job_ad": _sectioned("job"),
    "newsletter": _newsletter,
    "helpdesk": _sectioned("helpdesk"),
    "training": _sectioned("training"),
    "log": _log,
}


# Insertion ---------------------------------------------------------------------------------


def _dress(doc: _Doc, w: _Writer, text: str) -> str:
    """The snippet as the shape would carry it: a paragraph, a cell, a chat line, a string."""
    rng = w.rng
    if doc.style == "html":
        return f"<p>{text.replace(chr(10), '<br>')}</p>"
    if doc.style == "md":
        return rng.choice((text, f"> {text}", f"- {text}"))
    if doc.style == "chat":
        return f"{rng.choice((w.ctx['a'], w.ctx['b'], w.ctx['name3']))}: {text}"
    if doc.style == "log":
        return f"2025-03-04T{_clock(rng.randrange(86400))}Z INFO form: {text.replace(chr(10), ' ')}"
    if doc.style == "csv":
        d = ";" if ";" in doc.head[0] else ","
        quoted = '"' + text.replace('"', '""') + '"'
        return d.join([_date(w.lang, rng), w.ctx["company"], "0.00", "", quoted])
    if doc.style == "code":
        literal = json.dumps(text, ensure_ascii=False)
        return rng.choice((f"NOTE = {literal}", f"const note = {literal};", f'"""{text}"""'))
    return text


def _insert(doc: _Doc, snippet: str, position: str) -> None:
    if position == "footer":
        doc.foot.append(snippet)
        return
    index = {"start": 0, "middle": (len(doc.body) + 1) // 2, "end": len(doc.body)}[position]
    doc.body.insert(index, snippet)


def _case(rng: random.Random, text: str) -> str:
    roll = rng.random()
    if roll < 0.07:
        return text.upper()
    if roll < 0.14:
        return text.lower()
    return text


# Encodings ---------------------------------------------------------------------------------


def _zero_width(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    long_words = [i for i, word in enumerate(words) if len(word) >= 4]
    for i in rng.sample(long_words, min(len(long_words), max(2, len(long_words) * 2 // 3))):
        cut = rng.randrange(1, len(words[i]) - 1)
        words[i] = words[i][:cut] + rng.choice(_INVISIBLE) + words[i][cut:]
    return " ".join(words)


def _homoglyph(rng: random.Random, text: str) -> str:
    spots = [i for i, ch in enumerate(text) if ch in _HOMOGLYPHS]
    chosen = set(rng.sample(spots, min(len(spots), max(3, len(spots) // 3))))
    return "".join(_HOMOGLYPHS[ch] if i in chosen else ch for i, ch in enumerate(text))


def _encode(w: _Writer, method: str, payload: str, shape: str) -> tuple[str, bool]:
    """The payload hidden by ``method``; the flag says whether it goes in undressed."""
    rng, lab = w.rng, w.lab
    flat = payload.replace("\n", " ")
    if method == "base64":
        blob = base64.b64encode(payload.encode()).decode()
        form = rng.choice((f"{lab['b64']}: {blob}", f"X-Ref: {blob}", f"[{blob}]", blob))
        return form, False
    if method == "reversed":
        backwards = flat[::-1]
        return rng.choice(
            (f"{lab['rev']}: {backwards}", f"{backwards} ({lab['rev'].lower()})")
        ), False
    if method == "rot13":
        rot = codecs.encode(flat, "rot13")
        return rng.choice((f"ROT13: {rot}", f"{rot} [rot13]")), False
    if method == "zero_width":
        return _zero_width(rng, flat), False
    if method == "homoglyph":
        return _homoglyph(rng, flat), False
    if method == "html_comment":
        return f"<!-- {flat} -->", True
    if method == "alt_text":
        if shape == "markdown":
            return f"![{flat}](chart.png)", True
        return f'<img src="/img/banner.png" alt="{flat.replace(chr(34), "&quot;")}">', True
    if method == "hidden_span":
        style = rng.choice(("display:none", "font-size:0;color:#ffffff", "display: none"))
        return f'<span style="{style}">{flat}</span>', True
    if method == "md_comment":
        return f"[//]: # ({flat})", True
    # code_comment
    if shape == "code":
        return rng.choice((f"# {flat}", f"// {flat}", f"/* {flat} */")), True
    return f"```bash\n# {flat}\nsudo systemctl restart vpn-agent\n```", True


# Rows --------------------------------------------------------------------------------------


def _attack(rng: random.Random, lang: str, kind: str) -> tuple[str, str]:
    if kind == "encoded":
        method = _ENCODINGS[rng.randrange(len(_ENCODINGS))]
        shape = rng.choice(_ENCODING_SHAPES.get(method, SHAPES))
    else:
        method, shape = "", rng.choice(SHAPES)
    w = _Writer(rng, lang, shape)
    doc = _SHAPE_BUILDERS[shape](w)
    weights = (1, 4, 2, 2) if kind == "offtask" else (2, 2, 2, 1)
    position = rng.choices(("start", "middle", "end", "footer"), weights)[0]
    if kind == "encoded":
        source = rng.choice(("override", "role_hijack", "tool", "offtask", "addressed"))
        snippet, raw = _encode(w, method, w.pick(source)[0], shape)
        _insert(doc, snippet if raw else _dress(doc, w, snippet), position)
    else:
        for text in w.pick(kind, 2 if rng.random() < 0.12 else 1):
            prefix = rng.choice(("", "", "", "P.S. ", "NB: ", "* ")) if kind == "offtask" else ""
            _insert(doc, _dress(doc, w, prefix + _case(rng, text)), position)
    return shape, doc.render()


def _benign(rng: random.Random, lang: str, family: str) -> tuple[str, str]:
    shape = {
        "plain": rng.choice(_PLAIN_SHAPES),
        "imperative": rng.choice(("email", "meeting_notes", "chat_log", "markdown", "contract")),
        "training": "training",
        "chat": "chat_log",
        "bank": "email",
        "job": "job_ad",
        "helpdesk": "helpdesk",
        "code_prompt": rng.choice(("code", "code", "log")),
        "ai_mention": rng.choice(("newsletter", "policy", "email", "markdown")),
        "b64": rng.choice(("web_page", "markdown", "email", "code")),
        "unicode": rng.choice(("markdown", "email", "chat_log", "meeting_notes", "csv")),
    }[family]
    w = _Writer(rng, lang, shape)
    doc = _SHAPE_BUILDERS[shape](w)
    position = rng.choice(("start", "middle", "end", "footer"))
    if family in ("imperative", "ai_mention"):
        for text in w.pick(family, 2 if rng.random() < 0.3 else 1):
            _insert(doc, _dress(doc, w, _case(rng, text)), position)
    elif family == "unicode":
        _insert(doc, _dress(doc, w, w.fill(rng.choice(_UNICODE_BENIGN))), position)
    elif family == "chat":
        lines = w.d["chat"][: rng.randint(4, len(w.d["chat"]))]
        doc.body = [f"[{_clock(rng.randrange(28800, 61200))[:5]}] {w.fill(t)}" for t in lines]
    elif family == "bank":
        doc.head[1] = f"{w.lab['subject']}: {w.ctx['company']}, IBAN"
        doc.body, doc.foot = [w.pick("bank")[0]], []
    elif family == "code_prompt" and shape == "log":
        start = rng.randrange(0, 80000)
        lines = list(_LOG_PROMPT) + [w.fill(m) for m in rng.sample(_LOG_PLAIN, 3)]
        rng.shuffle(lines)
        doc.body = [f"2025-03-04T{_clock(start + 41 * i)}Z {m}" for i, m in enumerate(lines)]
    elif family == "code_prompt":
        blocks = _PY_PROMPT if rng.random() < 0.6 else _JS_PROMPT
        doc.body = [w.fill(b) for b in blocks] + doc.body[: rng.randint(0, 2)]
    elif family == "b64":
        _insert(doc, _benign_base64(w, doc), position)
    return shape, doc.render()


def _benign_base64(w: _Writer, doc: _Doc) -> str:
    rng = w.rng
    if doc.style == "code":
        token = base64.b64encode(rng.randbytes(24)).decode()
        return f'CONFIG = {{"service": "invoice-sync", "env": "staging", "api_token": "{token}"}}'
    if rng.random() < 0.5:
        uri = f"data:image/png;base64,{_PNG_1PX}"
    else:
        uri = f"data:image/svg+xml;base64,{base64.b64encode(_SVG_DOT.encode()).decode()}"
    if doc.style == "md":
        return f"![{w.ctx['company']} logo]({uri})"
    return f'<img src="{uri}" alt="{w.ctx["company"]} logo" width="8">'


def build(seed: int = SEED) -> list[dict[str, str | None]]:
    """Every row of the blind set, in file order."""
    rng = random.Random(seed)
    jobs = [("attack", k) for k, n in ATTACK_QUOTA.items() for _ in range(n)]
    jobs += [("benign", k) for k, n in BENIGN_QUOTA.items() for _ in range(n)]
    rng.shuffle(jobs)
    seen: Counter[str] = Counter()
    rows: list[dict[str, str | None]] = []
    for i, (label, family) in enumerate(jobs):
        offset = sorted(ATTACK_QUOTA | BENIGN_QUOTA).index(family)
        lang = _LANG_CYCLE[(seen[family] + offset) % len(_LANG_CYCLE)]
        seen[family] += 1
        make = _attack if label == "attack" else _benign
        shape, text = make(rng, lang, family)
        kind = family if label == "attack" else None
        row = {"id": f"b{i:05d}", "lang": lang, "shape": shape, "label": label, "kind": kind}
        rows.append(row | {"text": text})
    return rows


def dumps(rows: list[dict[str, str | None]]) -> str:
    """The JSONL text exactly as it is committed."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    rows = build()
    OUT.write_text(dumps(rows), encoding="utf-8")
    by = Counter((r["label"], r["kind"]) for r in rows)
    log.info("wrote %d rows to %s: %s", len(rows), OUT, dict(by))
    log.info("languages: %s", dict(Counter(r["lang"] for r in rows)))
    log.info("shapes: %s", dict(Counter(r["shape"] for r in rows)))


if __name__ == "__main__":
    main()
