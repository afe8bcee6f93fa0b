"""Replay, capture and scripted providers: no API key, no mocks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.models.replay import (
    FIXTURES,
    CapturingProvider,
    ReplayMiss,
    ReplayProvider,
    fixture_key,
    fixtures,
)
from adapters.models.scripted import ScriptedProvider, ScriptMissing
from domain.model_provider import ModelReply, ModelRequest
from domain.runs.parser import ParsedReply, ParseRejection, parse_reply
from domain.tools import REGISTRY

DEMO = FIXTURES / "diligence-demo.json"


def committed_fixtures() -> list[dict[str, str]]:
    items = json.loads(DEMO.read_text(encoding="utf-8"))
    assert isinstance(items, list) and items
    return items


def request(agent: str, task: str, **overrides: str | None) -> ModelRequest:
    values: dict[str, str | None] = {
        "agent_handle": agent,
        "task": task,
        "system_prompt": "system",
        "prompt": f"run-specific prompt for {task}",
    }
    values.update(overrides)
    return ModelRequest(**values)  # type: ignore[arg-type]


class EchoProvider:
    """A tiny live provider: answers with a JSON reply naming the task."""

    name = "echo"

    def __init__(self) -> None:
        self.calls: list[ModelRequest] = []

    async def generate(self, request: ModelRequest) -> ModelReply:
        self.calls.append(request)
        text = json.dumps({"summary": f"{request.agent_handle}: {request.task}", "actions": []})
        return ModelReply(
            text=text, provider=self.name, model=f"echo-{len(self.calls)}", input_tokens=3
        )


class BrokenProvider:
    """A live provider whose transport always fails."""

    name = "broken"

    async def generate(self, request: ModelRequest) -> ModelReply:
        raise ConnectionError("upstream down")


# ---------------------------------------------------------------------------- replay


def test_the_committed_fixture_file_is_well_formed() -> None:
    items = committed_fixtures()
    for item in items:
        assert {"agent", "task", "reply"} <= item.keys()
        assert all(isinstance(item[k], str) and item[k] for k in ("agent", "task", "reply"))
    keys = [fixture_key(i["agent"], i["task"]) for i in items]
    assert len(set(keys)) == len(keys), "two fixtures share a key: one would shadow the other"


def test_committed_fixtures_say_honestly_where_they_come_from() -> None:
    """A fixture written by hand says so; only the capture mode may label one captured."""
    for item in committed_fixtures():
        assert item.get("origin") in ("authored", "captured"), item["task"]
        if item["origin"] == "authored":
            assert item.get("model", "authored") == "authored", item["task"]
        assert "captured" not in item.get("model", ""), item["task"]


@pytest.mark.parametrize(
    "item", committed_fixtures(), ids=lambda i: f"{i['agent']}:{i['task'][:30]}"
)
async def test_every_committed_fixture_replays_and_parses(item: dict[str, str]) -> None:
    provider = ReplayProvider()

    reply = await provider.generate(request(item["agent"], item["task"]))

    assert reply.text == item["reply"]
    assert reply.provider == "replay" == provider.name
    assert reply.model == item.get("model", "fixture")
    parsed = parse_reply(reply.text, REGISTRY)
    if item["agent"] == "scout":
        assert isinstance(parsed, ParseRejection), parsed
        assert parsed.rule == "malformed_json"
    else:
        assert isinstance(parsed, ParsedReply), parsed
        assert parsed.actions, "a demo fixture proposes at least one action"
        for action in parsed.actions:
            assert action.tool in REGISTRY
            assert action.projects


def test_the_demo_fixtures_cover_the_showcase_agents() -> None:
    agents = {i["agent"] for i in committed_fixtures()}
    assert {"orion", "vega", "ledger", "scout"} <= agents


async def test_the_replay_depends_only_on_agent_and_task_not_on_the_prompt() -> None:
    provider = ReplayProvider()
    item = committed_fixtures()[0]

    a = await provider.generate(
        request(item["agent"], item["task"], prompt="run 1", system_prompt="x")
    )
    b = await provider.generate(
        request(item["agent"], item["task"], prompt="run 2", system_prompt="y")
    )

    assert a == b


@pytest.mark.parametrize(
    "mangle",
    [
        lambda t: f"  {t}  ",
        lambda t: t.replace(" ", "   "),
        lambda t: t.replace(" ", "\n", 2),
        lambda t: "\t" + t.replace(" ", " \t ") + "\n",
    ],
    ids=["padded", "wide-spaces", "newlines", "tabs"],
)
async def test_whitespace_differences_in_the_task_still_match(mangle: object) -> None:
    provider = ReplayProvider()
    item = committed_fixtures()[0]
    task = mangle(item["task"])  # type: ignore[operator]
    assert task != item["task"]

    reply = await provider.generate(request(item["agent"], task))

    assert reply.text == item["reply"]


async def test_an_unknown_task_raises_replay_miss() -> None:
    provider = ReplayProvider()

    with pytest.raises(ReplayMiss) as raised:
        await provider.generate(request("orion", "Wire the Atlas escrow to an unknown account."))

    assert isinstance(raised.value, LookupError)
    assert "orion" in str(raised.value)


async def test_a_known_task_for_another_agent_misses() -> None:
    provider = ReplayProvider()
    item = next(i for i in committed_fixtures() if i["agent"] == "ledger")

    with pytest.raises(ReplayMiss):
        await provider.generate(request("orion", item["task"]))


async def test_a_changed_word_misses() -> None:
    provider = ReplayProvider()
    item = committed_fixtures()[0]

    with pytest.raises(ReplayMiss):
        await provider.generate(request(item["agent"], item["task"].rstrip(".") + "!"))


async def test_an_empty_directory_replays_nothing(tmp_path: Path) -> None:
    provider = ReplayProvider(tmp_path)
    item = committed_fixtures()[0]

    with pytest.raises(ReplayMiss):
        await provider.generate(request(item["agent"], item["task"]))


async def test_a_fixture_without_a_model_is_reported_as_fixture(tmp_path: Path) -> None:
    (tmp_path / "hand.json").write_text(
        json.dumps([{"agent": "vega", "task": "Say hi.", "reply": "hi"}]), encoding="utf-8"
    )

    reply = await ReplayProvider(tmp_path).generate(request("vega", "Say hi."))

    assert reply == ModelReply(text="hi", provider="replay", model="fixture")


# ---------------------------------------------------------------------------- capture


async def test_capture_writes_the_fixture_and_replay_plays_it_back(tmp_path: Path) -> None:
    inner = EchoProvider()
    path = tmp_path / "captured.json"
    capturing = CapturingProvider(inner, path)
    assert capturing.name == "capture:echo"
    assert not path.exists()

    first = await capturing.generate(request("orion", "Send the agenda."))
    second = await capturing.generate(request("vega", "Send the index."))

    # The live answers pass through unchanged.
    assert first.provider == "echo" and first.model == "echo-1" and first.input_tokens == 3
    assert second.model == "echo-2"
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written == [
        {
            "agent": "orion",
            "task": "Send the agenda.",
            "reply": first.text,
            "model": "echo-1",
            "origin": "captured",
        },
        {
            "agent": "vega",
            "task": "Send the index.",
            "reply": second.text,
            "model": "echo-2",
            "origin": "captured",
        },
    ]

    replay = ReplayProvider(tmp_path)
    again = await replay.generate(request("orion", "Send the agenda.", prompt="another run"))
    assert again == ModelReply(text=first.text, provider="replay", model="echo-1")
    parsed = parse_reply(again.text, REGISTRY)
    assert isinstance(parsed, ParsedReply) and parsed.actions == ()
    assert (await replay.generate(request("vega", "Send the index."))).text == second.text
    assert len(inner.calls) == 2


async def test_capturing_the_same_task_again_replaces_its_fixture(tmp_path: Path) -> None:
    inner = EchoProvider()
    path = tmp_path / "captured.json"
    capturing = CapturingProvider(inner, path)

    await capturing.generate(request("orion", "Send the agenda."))
    await capturing.generate(request("vega", "Send the index."))
    newer = await capturing.generate(request("orion", "  Send   the agenda.\n"))

    written = json.loads(path.read_text(encoding="utf-8"))
    assert len(written) == 2
    assert [w["agent"] for w in written] == ["vega", "orion"]
    assert written[-1]["model"] == "echo-3"
    replayed = await ReplayProvider(tmp_path).generate(request("orion", "Send the agenda."))
    assert replayed.text == newer.text and replayed.model == "echo-3"


async def test_capture_appends_to_an_existing_fixture_file(tmp_path: Path) -> None:
    path = tmp_path / "set.json"
    path.write_text(
        json.dumps([{"agent": "scout", "task": "Old.", "reply": "old", "model": "m0"}]),
        encoding="utf-8",
    )

    await CapturingProvider(EchoProvider(), path).generate(request("scout", "New."))

    replay = ReplayProvider(tmp_path)
    assert (await replay.generate(request("scout", "Old."))).text == "old"
    assert json.loads((await replay.generate(request("scout", "New."))).text)["summary"] == (
        "scout: New."
    )


async def test_a_failed_live_call_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "captured.json"

    with pytest.raises(ConnectionError):
        await CapturingProvider(BrokenProvider(), path).generate(request("orion", "Anything."))

    assert not path.exists()


async def test_capture_over_replay_round_trips_the_committed_fixtures(tmp_path: Path) -> None:
    path = tmp_path / "recaptured.json"
    capturing = CapturingProvider(ReplayProvider(), path)
    items = committed_fixtures()

    for item in items:
        await capturing.generate(request(item["agent"], item["task"]))

    written = json.loads(path.read_text(encoding="utf-8"))
    assert [(w["agent"], w["task"], w["reply"]) for w in written] == [
        (i["agent"], i["task"], i["reply"]) for i in items
    ]


# ---------------------------------------------------------------------------- scripted


async def test_scripted_returns_the_script_verbatim() -> None:
    script = '```json\n{"not": "repaired"}\n```'

    reply = await ScriptedProvider().generate(request("orion", "x", scripted_reply=script))

    assert reply == ModelReply(text=script, provider="scripted", model="script")
    assert ScriptedProvider.name == "scripted"


async def test_scripted_returns_an_empty_script_as_empty_text() -> None:
    reply = await ScriptedProvider().generate(request("orion", "x", scripted_reply=""))

    assert reply.text == ""


async def test_scripted_without_a_script_raises_script_missing() -> None:
    with pytest.raises(ScriptMissing) as raised:
        await ScriptedProvider().generate(request("orion", "x"))

    assert isinstance(raised.value, ValueError)


async def test_a_reply_given_by_a_person_is_used_as_given_and_says_so() -> None:
    """With no model configured, ``--reply`` stands in for the model: the reply is the
    given text, recorded as provider ``given``, fixture or not."""
    provider = ReplayProvider()
    reply = await provider.generate(
        request("orion", "Send the Atlas client the kickoff agenda.", scripted_reply="{}")
    )
    assert reply == ModelReply(text="{}", provider="given", model="given")


async def test_a_miss_says_what_to_do() -> None:
    with pytest.raises(ReplayMiss) as miss:
        await ReplayProvider().generate(request("orion", "Something nobody scripted."))
    assert "verletica fixtures" in str(miss.value) and "--reply FILE" in str(miss.value)


def test_the_fixtures_are_listed_with_their_file_and_origin() -> None:
    listed = fixtures()
    kickoff = [f for f in listed if f.task == "Send the Atlas client the kickoff agenda."]
    assert [(f.agent, f.origin, f.file) for f in kickoff] == [
        ("orion", "authored", "diligence-demo.json")
    ]
    assert {f.file for f in listed} >= {"commitments.json", "learning.json"}
