"""The showcase: a diligence scenario for a small advisory firm, played over the HTTP API.

It onboards Harbor & Vale Advisory, walls off two engagements, files a confidential
West note in memory (and refuses a document that reads as instructions), records a
spend cap and runs agents whose proposals meet every broker outcome; the planners'
context reads show the wall in memory. ``play`` returns what happened; ``render``
prints it. The replies come from the replay fixtures in
``adapters/models/fixtures/diligence-demo.json`` unless a live model is configured.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Generator
from typing import Any

import httpx
from rich.console import Console

from api.local.demo_report import DemoReport, MemoryShow
from api.local.demo_script import (
    ATLAS_LETTER,
    CHECKLIST,
    CHECKLIST_REPLIES,
    DELIBERATION_REPLIES,
    DESTINATIONS,
    EAST_QUERY,
    INVOICE,
    INVOICE_REF,
    KICKOFF_EPISODES,
    LETTER_REF,
    QUESTION,
    REDIRECT_INVOICE,
    REDIRECT_REF,
    REDIRECT_SOURCE,
    REDIRECT_TASK,
    TASKS,
    WEST_NOTE,
    WEST_NOTE_REF,
)

NONCE_HEADER = "X-Verletica-Nonce"


class Bearer(httpx.Auth):
    """A person's ID token on every request, with a fresh nonce (an acting request's
    nonce is remembered: sending one twice is a replay)."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token}"
        request.headers[NONCE_HEADER] = uuid.uuid4().hex
        yield request


SignIn = Callable[[str], str]
"""An ID token for a subject (the issuer's name for a person)."""


async def _settled(
    http: httpx.AsyncClient, auth: Bearer, run_id: str, until: str, timeout: float = 60
) -> dict[str, Any]:
    """Poll a run until it completes (or, with ``until='hold'``, waits on a human)."""
    deadline = time.monotonic() + timeout
    while True:
        view = (await http.get(f"/v1/runs/{run_id}", auth=auth)).raise_for_status().json()
        state = view.get("state") or {}
        if view["workflow_status"] != "running":
            return view  # type: ignore[no-any-return]
        if until == "hold" and state.get("status") == "needs_human":
            return view  # type: ignore[no-any-return]
        if until.startswith("refused:"):
            refused = [r for i in state.get("intents", []) for r in i["refused_reviews"]]
            if len(refused) >= int(until.split(":")[1]):
                return view  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise TimeoutError(f"run {run_id} did not reach {until!r}: {state}")
        await asyncio.sleep(0.2)


async def play(
    http: httpx.AsyncClient, sign_in: SignIn, console: Console | None = None
) -> DemoReport:
    """Play the scenario against a running API (worker and Temporal behind it); its
    people sign in with the ID tokens ``sign_in`` gets them from the issuer."""
    say = console.print if console else (lambda *_a, **_k: None)
    # each play founds a new firm: its people are new to the issuer too
    tag = uuid.uuid4().hex[:8]
    ada_subject, ben_subject = f"ada-{tag}@harborvale.example", f"ben-{tag}@harborvale.example"
    as_founder = Bearer(sign_in(ada_subject))

    say("[bold]1. Onboarding[/] Harbor & Vale Advisory with its starter fleet")
    org = (
        (
            await http.post(
                "/v1/orgs",
                json={
                    "name": "Harbor & Vale Advisory",
                    "founder_email": "ada@harborvale.example",
                    "founder_name": "Ada Vale",
                },
                auth=as_founder,
            )
        )
        .raise_for_status()
        .json()
    )
    org_id, founder = org["org_id"], org["founder_id"]
    agents = {a["handle"]: a["id"] for a in org["agents"]}

    async def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
        return (await http.post(path, json=body, auth=as_founder)).raise_for_status().json()  # type: ignore[no-any-return]

    ben = await post(
        f"/v1/orgs/{org_id}/humans",
        {"email": "ben@harborvale.example", "display_name": "Ben Okafor"},
    )
    await post(
        f"/v1/orgs/{org_id}/identities",
        {"principal_id": ben["id"], "kind": "oidc", "external_id": ben_subject},
    )
    as_ben = Bearer(sign_in(ben_subject))
    me = (await http.get("/v1/whoami", auth=as_ben)).raise_for_status().json()
    say(f"   Ada and Ben sign in with ID tokens from the issuer; Ben's proves {me['handle']}")
    say("[bold]2. Projects[/] east (Atlas, buy-side) and west (Birch, sell-side), a wall between")
    await post(f"/v1/orgs/{org_id}/projects", {"slug": "east", "name": "Project Atlas (buy-side)"})
    await post(f"/v1/orgs/{org_id}/projects", {"slug": "west", "name": "Project Birch (sell-side)"})
    await post(
        f"/v1/orgs/{org_id}/barriers", {"name": "Atlas/Birch wall", "groups": [["east"], ["west"]]}
    )
    say(
        "   Ada chose, as the wall went up, to stay approver on both sides: she approves "
        "there and so reads the memory of neither (the workspace says so)"
    )
    for who, project in (
        (agents["orion"], "east"),
        (agents["vega"], "west"),
        (agents["ledger"], "east"),
        (ben["id"], "east"),
    ):
        await post(f"/v1/orgs/{org_id}/staffing", {"principal_id": who, "project": project})
    for project, kind, value, account, label in DESTINATIONS:
        await post(
            f"/v1/orgs/{org_id}/destinations",
            {"project": project, "kind": kind, "value": value, "account": account, "label": label},
        )
    say(
        f"   Ada establishes where each side's work may go: {len(DESTINATIONS)} clients, "
        "colleagues and vendors (anything else waits for her)"
    )
    await post(
        f"/v1/orgs/{org_id}/memory",
        {
            "ref": "atlas-kickoff",
            "projects": ["east"],
            "text": "Atlas kickoff: the client CFO wants the agenda and the data-room index.",
        },
    )
    await post(
        f"/v1/orgs/{org_id}/memory",
        {
            "ref": "birch-cim",
            "projects": ["west"],
            "text": "Birch CIM: confidential EBITDA bridge and management projections (sell-side).",
        },
    )
    say("[bold]3. Memory behind the wall[/] Ada files a confidential West note, then an invoice")
    await post(
        f"/v1/orgs/{org_id}/memory",
        {
            "ref": WEST_NOTE_REF,
            "projects": ["west"],
            "text": WEST_NOTE,
            "kind": "note",
            "source": "Birch data room, diligence folder",
        },
    )
    trail = (await http.get(f"/v1/orgs/{org_id}/audit", auth=as_founder)).raise_for_status()
    (tagged,) = (
        e["payload"]["tagged"]
        for e in trail.json()["entries"]
        if e["decision"] == "redacted" and e["payload"].get("ref") == WEST_NOTE_REF
    )
    say(f"   {WEST_NOTE_REF} stored on west; tagged: {_kinds(tagged)}")
    found = (
        await http.post(
            f"/v1/orgs/{org_id}/memory/query",
            json={"text": EAST_QUERY, "k": 3},
            auth=as_ben,
        )
    ).raise_for_status()
    east_query = found.json()
    shown = ", ".join(h["view"]["ref"] for h in east_query["hits"]) or "none"
    say(
        f"   Ben (east) asks memory {EAST_QUERY!r} → {east_query['withheld']} withheld, "
        f"nothing of it shown (hits: {shown})"
    )
    refused = await http.post(
        f"/v1/orgs/{org_id}/memory",
        json={
            "ref": INVOICE_REF,
            "projects": ["west"],
            "text": INVOICE,
            "kind": "invoice",
            "source": "accounts@northwind.example",
        },
        auth=as_founder,
    )
    refusal = {"status": refused.status_code, "detail": refused.json().get("detail", "")}
    if refused.status_code == 422:
        say(f"   {INVOICE_REF} (its note addresses the assistant) → 422 refused:")
        say(f"     {refusal['detail']}")
    else:
        say(f"   [red]{INVOICE_REF} (its note addresses the assistant) → {refused.status_code}[/]")
    memory = MemoryShow(
        west_ref=WEST_NOTE_REF, tagged=tagged, east_query=east_query, refusal=refusal
    )

    say("[bold]4. Commitments[/] Ledger extracts the Atlas engagement letter's obligations")
    await post(
        f"/v1/orgs/{org_id}/memory",
        {"ref": LETTER_REF, "projects": ["east"], "text": ATLAS_LETTER, "kind": "contract"},
    )
    extracted = await post(
        f"/v1/orgs/{org_id}/commitments/extract",
        {"ref": LETTER_REF, "extractor_id": agents["ledger"]},
    )
    by_kind = {c["constraint"]["kind"]: c for c in extracted["commitments"]}
    for c in extracted["commitments"]:
        span = c["provenance"]["span"]
        say(f"   extracted {c['constraint']['kind']}: {c['title']} (chars {span[0]}-{span[1]})")
    # The cap binds once Ada confirms it; the notice period is not the firm's to enforce;
    # the delivery waits in the needs-you queue for a human.
    await post(f"/v1/commitments/{by_kind['spend_cap']['id']}/confirm", {})
    say("   Ada confirms the spend cap: from now on it binds")
    await post(
        f"/v1/commitments/{by_kind['notice_period']['id']}/reject",
        {"reason": "a termination right, not an obligation the fleet can break"},
    )
    say("   Ada rejects the notice period: it never binds")

    say("[bold]5. Agent runs[/]")
    runs: dict[str, dict[str, Any]] = {}
    started: dict[str, str] = {}
    for step, (handle, task) in TASKS.items():
        run = await post(
            f"/v1/orgs/{org_id}/runs",
            {"agent_id": agents[handle], "task": task, "client_key": f"demo-{step}"},
        )
        started[step] = run["run_id"]
    for step in ("kickoff", "cross", "unstaffed", "malformed", "west"):
        runs[step] = await _settled(http, as_founder, started[step], "completed")
    held = await _settled(http, as_founder, started["payment"], "hold")
    intent = held["state"]["intents"][0]["intent"]["id"]
    say(f"   payment held: {held['state']['intents'][0]['decision']['reason']}")
    queue = (await http.get(f"/v1/orgs/{org_id}/needs-you", auth=as_founder)).json()
    say(f"   needs-you: {len(queue['items'])} item(s) wait for a human (the queue is shown below)")
    say("   Ben (no approval authority) approves → recorded and refused")
    approval = {"approver_id": ben["id"], "reason": "looks fine"}
    (
        await http.post(f"/v1/intents/{intent}/approve", json=approval, auth=as_ben)
    ).raise_for_status()
    await _settled(http, as_founder, started["payment"], "refused:1")
    say("   Ada (approver on east) approves → dispatched once")
    await post(
        f"/v1/intents/{intent}/approve",
        {"approver_id": founder, "reason": "client consented in writing on 2026-11-27"},
    )
    runs["payment"] = await _settled(http, as_founder, started["payment"], "completed")
    runs["redirect"] = await _redirect(http, as_founder, org_id, say)

    say("[bold]6. Memory behind the wall, read back[/] what each planner's run recalled")
    memory.reads = await _memory_reads(http, org_id, as_founder)
    for step, side in (("cross", "east"), ("west", "west")):
        handle, task = TASKS[step]
        (read,) = (
            r
            for r in memory.reads
            if r["path"] == "recall" and r["asker_id"] == agents[handle] and r["query"] == task
        )
        got = WEST_NOTE_REF in read["released"]
        say(
            f"   {handle} ({side} planner): "
            + (
                f"{WEST_NOTE_REF} released, its {_kinds(tagged)} masked (an agent's view)"
                if got
                else f"{WEST_NOTE_REF} withheld, no content"
            )
            + f" — released {', '.join(read['released']) or 'nothing'}, "
            f"{read['withheld']} withheld"
        )

    say("[bold]7. Time and learning[/] the road not taken, the heartbeat, a process offer")
    crossed = runs["cross"]["intents"][0]["intent"]["id"]
    road = (
        (await http.get(f"/v1/intents/{crossed}/counterfactual", auth=as_founder))
        .raise_for_status()
        .json()
    )
    wall = road["crossing"]["barrier"] if road["crossing"] else "none"
    write = road["write"] or {}
    say(
        f"   counterfactual of the rejected brief: without enforcement it would "
        f"{road['would']} and {write.get('system', '?')}.{write.get('action', '?')} "
        f"across '{wall}'; nothing written, nothing appended"
    )
    answer = await http.post(f"/v1/orgs/{org_id}/heartbeat", auth=as_founder, timeout=120)
    beats: list[dict[str, Any]] = answer.raise_for_status().json()
    beat = beats[0] if beats else {}
    say(
        f"   heartbeat: {len(beat.get('checks', []))} checks, "
        f"{len(beat.get('findings', []))} finding(s), recorded as a HeartbeatRun"
    )
    wordings = set()
    for raw in KICKOFF_EPISODES:
        recorded = await post(
            f"/v1/orgs/{org_id}/episodes",
            {
                "steps": [{"tool": t, "text": x} for t, x in raw],
                "outcome_met": True,
                "projects": ["east"],
            },
        )
        wordings.add(recorded["id"])
    await post(f"/v1/orgs/{org_id}/offers/review", {})
    listed = (await http.get(f"/v1/orgs/{org_id}/offers", auth=as_founder)).json()
    # the runs above are episodes too, each its own offer; the kickoffs are one
    (offer,) = (o for o in listed if wordings & set(o["episodes"]))
    await post(f"/v1/offers/{offer['id']}/confirm", {"name": "atlas-kickoff-prep"})
    say(
        f"   three differently worded kickoffs → one process offer "
        f"({len(offer['episodes'])} episodes as evidence), confirmed as playbook "
        "'atlas-kickoff-prep'"
    )

    say("[bold]8. The fleet at work[/] the diligence checklist as a work graph, a deliberation")
    graph_held, graph_final = await _checklist(http, as_founder, org_id, founder, say)
    deliberation = await _deliberate(http, as_founder, org_id, say)

    audit = (
        (await http.get(f"/v1/orgs/{org_id}/audit", params={"verify": "true"}, auth=as_founder))
        .raise_for_status()
        .json()
    )
    principals = (await http.get(f"/v1/orgs/{org_id}/principals", auth=as_founder)).json()
    left = (await http.get(f"/v1/orgs/{org_id}/needs-you", auth=as_founder)).raise_for_status()
    return DemoReport(
        org_id=org_id,
        founder_id=founder,
        associate_id=ben["id"],
        founder_subject=ada_subject,
        associate_subject=ben_subject,
        handles={p["id"]: p["handle"] for p in principals},
        runs=runs,
        audit=audit,
        memory=memory,
        needs_you=queue,
        metrics=(await http.get(f"/v1/orgs/{org_id}/metrics", auth=as_founder)).json(),
        failed=(await http.get(f"/v1/orgs/{org_id}/runs/failed", auth=as_founder))
        .raise_for_status()
        .json(),
        graph_held=graph_held,
        graph=graph_final,
        deliberation=deliberation,
        commitments={kind: c["id"] for kind, c in by_kind.items()},
        waiting=left.json()["items"],
    )


async def _redirect(
    http: httpx.AsyncClient, auth: Bearer, org_id: str, say: Callable[..., None]
) -> dict[str, Any]:
    """An outside invoice "from" a known vendor announces new bank details; Ledger, asked
    to pay it, proposes exactly that. The broker holds it, naming the invoice: it waits in
    the console for Ada."""
    say("[bold]5b. New bank details from outside[/] an invoice that passes the screen")
    (
        await http.post(
            f"/v1/orgs/{org_id}/memory",
            json={
                "ref": REDIRECT_REF,
                "projects": ["east"],
                "text": REDIRECT_INVOICE,
                "kind": "invoice",
                "source": REDIRECT_SOURCE,
            },
            auth=auth,
        )
    ).raise_for_status()
    handle, task = REDIRECT_TASK
    agents = {
        p["handle"]: p["id"]
        for p in (await http.get(f"/v1/orgs/{org_id}/principals", auth=auth)).json()
    }
    run = (
        (
            await http.post(
                f"/v1/orgs/{org_id}/runs",
                json={"agent_id": agents[handle], "task": task, "client_key": "demo-redirect"},
                auth=auth,
            )
        )
        .raise_for_status()
        .json()
    )
    held = await _settled(http, auth, run["run_id"], "hold")
    decision = held["state"]["intents"][0]["decision"]
    say(f"   {REDIRECT_REF} filed (it addresses no assistant: the screen lets it in)")
    say(f"   Ledger's payment held: {decision['reason']}")
    say("   it waits in the console for Ada to decide (approve, trust the new details, or deny)")
    return held


async def _memory_reads(http: httpx.AsyncClient, org_id: str, auth: Bearer) -> list[dict[str, Any]]:
    """The memory read log, oldest first."""
    answer = await http.get(f"/v1/orgs/{org_id}/memory/reads", auth=auth)
    return answer.raise_for_status().json()  # type: ignore[no-any-return]


async def _start(
    http: httpx.AsyncClient, auth: Bearer, path: str, body: dict[str, Any]
) -> dict[str, Any]:
    """Start with the scripted replies; where a live model answers (which refuses them),
    without: the model then replies for itself."""
    answer = await http.post(path, json=body, auth=auth)
    if answer.status_code == 403 and body.get("scripted_replies"):
        answer = await http.post(path, json={**body, "scripted_replies": {}}, auth=auth)
    return answer.raise_for_status().json()  # type: ignore[no-any-return]


async def _graph_until(
    http: httpx.AsyncClient,
    auth: Bearer,
    graph_id: str,
    done: Callable[[dict[str, Any]], bool],
    timeout: float = 120,
) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        view = (await http.get(f"/v1/graphs/{graph_id}", auth=auth)).raise_for_status().json()
        if done(view):
            return view  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise TimeoutError(f"graph {graph_id}: {view['state']}")
        await asyncio.sleep(0.2)


def _step(view: dict[str, Any], step_id: str) -> dict[str, Any]:
    return next(s for s in view["state"]["steps"] if s["id"] == step_id)


async def _checklist(
    http: httpx.AsyncClient, auth: Bearer, org_id: str, founder: str, say: Callable[..., Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The checklist graph: the payment's branch waits for Ada while Birch's completes;
    she approves; the close joins both (West's output withheld from East's agent)."""
    started = await _start(
        http,
        auth,
        f"/v1/orgs/{org_id}/graphs",
        {"graph": CHECKLIST, "scripted_replies": CHECKLIST_REPLIES},
    )
    graph_id = started["graph_id"]
    held = await _graph_until(
        http,
        auth,
        graph_id,
        lambda v: (
            v["workflow_status"] != "running"
            or (_step(v, "storage")["status"] == "held" and _step(v, "birch")["status"] == "done")
        ),
    )
    storage = _step(held, "storage")
    say(
        f"   graph '{CHECKLIST['name']}': storage payment {storage['status']}, birch "
        f"{_step(held, 'birch')['status']}, access {_step(held, 'access')['status']}, close "
        f"{_step(held, 'close')['status']} (the held branch waits; the other ran)"
    )
    if storage["status"] == "held":
        run = (await http.get(f"/v1/runs/{storage['run_id']}", auth=auth)).json()
        intent = run["state"]["intents"][0]["intent"]["id"]
        (
            await http.post(
                f"/v1/intents/{intent}/approve",
                json={"approver_id": founder, "reason": "storage extension agreed with Atlas"},
                auth=auth,
            )
        ).raise_for_status()
        say("   Ada approves the storage payment → its branch goes on; the close joins both")
    final = await _graph_until(http, auth, graph_id, lambda v: v["workflow_status"] != "running")
    say(f"   graph {final['state']['status']}: every step a governed run of its own")
    return held, final


async def _deliberate(
    http: httpx.AsyncClient, auth: Bearer, org_id: str, say: Callable[..., Any]
) -> dict[str, Any]:
    """Analyst, skeptic and counsel argue whether to send the agenda; Orion synthesises."""
    started = await _start(
        http,
        auth,
        f"/v1/orgs/{org_id}/deliberations",
        {"agent": "orion", "question": QUESTION, "scripted_replies": DELIBERATION_REPLIES},
    )
    deadline = time.monotonic() + 120
    while True:
        view = (
            (await http.get(f"/v1/deliberations/{started['deliberation_id']}", auth=auth))
            .raise_for_status()
            .json()
        )
        if view["workflow_status"] != "running":
            break
        if time.monotonic() > deadline:
            raise TimeoutError(f"deliberation: {view['state']}")
        await asyncio.sleep(0.2)
    state = view["state"]
    refused = [e for e in state["provenance"] if e["gate"] == "failed"]
    say(
        f"   deliberation: {', '.join(p['name'] for p in state['personas'])}; "
        f"{len(refused)} reply refused by the quality gate and re-entered; "
        f"synthesis {state['status']}"
    )
    return view  # type: ignore[no-any-return]


def _kinds(counts: dict[str, int]) -> str:
    """``{"email": 1, "phone": 2}`` → ``email, phone ×2``."""
    return ", ".join(k if n == 1 else f"{k} ×{n}" for k, n in sorted(counts.items())) or "nothing"
