"""What a plain run is handed with its task: the run answering a question knows what the
asking run read, and so does every retry of it (read back from the question on the
chain, through the retries' client keys)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import cast

from domain.audit.chain import AuditEntry
from domain.governance.records import question_draft
from domain.needs_you.chain import read_chain
from domain.organization.visibility import ChainReach
from domain.runs.run import RunRecord
from usecases.context import Ports
from usecases.needs_you.answer import Handed, handed

NOW = datetime(2026, 12, 6, 10, tzinfo=UTC)


def run(run_id: str, key: str | None) -> RunRecord:
    return RunRecord(
        id=run_id,
        org_id="o",
        agent_id="ledger",
        task="pay",
        workflow_id=f"wf-{run_id}",
        client_key=key,
        created_at=NOW,
    )


class _Runs:
    def __init__(self, *records: RunRecord) -> None:
        self.by_id = {r.id: r for r in records}

    def get(self, run_id: str) -> RunRecord | None:
        return self.by_id.get(run_id)


class _Ports:
    def __init__(self, *records: RunRecord) -> None:
        self.runs = _Runs(*records)


def entry(seq: int, draft_run: str, refs: tuple[str, ...], reach: tuple[str, ...]) -> AuditEntry:
    draft = question_draft(draft_run, "ledger", "Pay it?", "new bank details", refs, reach)
    return AuditEntry(
        org_id="o",
        seq=seq,
        at=NOW.isoformat(),
        actor=draft.actor,
        intent_id=draft.intent_id,
        decision=draft.decision,
        stage=draft.stage,
        rule=draft.rule,
        payload=draft.payload,
        prev_hash="0" * 64,
        entry_hash=f"{seq:064x}",
        event_key=draft.event_key,
    )


def test_an_answer_and_its_retries_are_handed_what_the_asking_run_read() -> None:
    asking, answer = run("r-1", None), run("r-2", "answer:r-1")
    retry, again = run("r-3", "retry:r-2"), run("r-4", "retry:r-3")
    story = read_chain([entry(1, "r-1", ("inv-1", "note-2"), ("east",))])
    ports = cast(Ports, _Ports(asking, answer, retry, again))
    read = Handed(("inv-1", "note-2"), ("east",))
    assert [handed(ports, story, r) for r in (answer, retry, again)] == [read] * 3
    assert handed(ports, story, asking) == Handed()


def test_a_question_recorded_before_reads_were_kept_hands_nothing() -> None:
    old = entry(1, "r-1", (), ())
    assert "read_refs" not in old.payload  # the payload of an entry as it was before
    story = read_chain([old])
    answer = run("r-2", "answer:r-1")
    assert handed(cast(Ports, _Ports(answer)), story, answer) == Handed()


def test_a_loop_of_retry_keys_ends() -> None:
    a, b = run("a", "retry:b"), run("b", "retry:a")
    assert handed(cast(Ports, _Ports(a, b)), read_chain([]), a) == Handed()


def test_projects_handed_without_records_are_kept_with_the_question() -> None:
    # A work graph's later step is handed the projects of earlier outputs, often with no
    # record of their own: the run answering its question must still count them.
    asked = entry(1, "r-1", (), ("east",))
    assert asked.payload["read_reach"] == ["east"]
    answer = run("r-2", "answer:r-1")
    assert handed(cast(Ports, _Ports(answer)), read_chain([asked]), answer) == Handed((), ("east",))


def test_a_question_is_read_only_where_everything_its_run_read_may_be() -> None:
    # The run was on north when it asked; what it read was east's: the entry names east's
    # records, so its readers are those of both.
    asked = entry(1, "r-1", ("inv-1",), ("east",))
    reach = ChainReach([asked], by_run={"r-1": ("north",)}, by_intent={})
    assert reach.of(asked) == frozenset({"north", "east"})
