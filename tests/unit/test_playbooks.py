"""Drift of a confirmed playbook, and a run read as an episode: pure rules."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.time.offers import Step
from domain.time.playbooks import (
    DriftFinding,
    EpisodeRecord,
    OfferRecord,
    OfferState,
    RunFacts,
    RunStep,
    drift,
    run_episode,
)

NOW = datetime(2026, 12, 1, tzinfo=UTC)
STEP = Step(tool="email.send", text="Email the agenda")


def _episode(n: int, met: bool | None) -> EpisodeRecord:
    return EpisodeRecord(
        id=f"e{n}",
        org_id="o",
        steps=(STEP,),
        outcome_met=met,
        recorded_by="p",
        recorded_at=NOW,
        embedder="x",
        vectors=(b"\0\0\x80?",),
    )


def _offer(members: list[EpisodeRecord], confirmed_with: int = 3) -> OfferRecord:
    return OfferRecord(
        id="f",
        org_id="o",
        tools=("email.send",),
        steps=(STEP,),
        episodes=tuple(m.id for m in members),
        state=OfferState.CONFIRMED,
        created_at=NOW,
        playbook="kickoff",
        confirmed_with=confirmed_with,
    )


def _members(*later: bool | None) -> list[EpisodeRecord]:
    return [_episode(n, True) for n in range(3)] + [
        _episode(3 + n, met) for n, met in enumerate(later)
    ]


@pytest.mark.parametrize(
    ("later", "flagged"),
    [
        ((False,), False),
        ((False, False), False),
        ((False, False, False), True),
        ((True, False, False, False), True),
        ((False, False, True, True), False),
        ((False, False, False, True, True), False),  # the last four: 2 misses
        ((False, None, False, None, False), True),  # unknown outcomes do not count
    ],
)
def test_drift_needs_three_misses_among_the_last_four_known(
    later: tuple[bool | None, ...], flagged: bool
) -> None:
    members = _members(*later)
    assert (drift(_offer(members), members, []) is not None) is flagged


def test_episodes_before_confirmation_never_count() -> None:
    members = [_episode(n, False) for n in range(4)]
    assert drift(_offer(members, confirmed_with=4), members, []) is None
    assert drift(_offer(members, confirmed_with=0), members, []) == (("e0", "e1", "e2", "e3"), 4)


def test_an_open_offer_does_not_drift() -> None:
    members = _members(False, False, False)
    offer = _offer(members).model_copy(update={"state": OfferState.OPEN})
    assert drift(offer, members, []) is None


def test_a_flagged_window_is_not_flagged_again() -> None:
    members = _members(False, False, False)
    window, missed = drift(_offer(members), members, []) or ((), 0)
    finding = DriftFinding(
        id="d",
        org_id="o",
        offer_id="f",
        playbook="kickoff",
        episodes=window,
        missed=missed,
        flagged_by="p",
        flagged_at=NOW,
    )
    assert drift(_offer(members), members, [finding]) is None
    more = _members(False, False, False, True, False, False, False)
    assert drift(_offer(more), more, [finding]) == (("e6", "e7", "e8", "e9"), 3)


def _run(*statuses: str, justification: str = "Email the agenda") -> RunFacts:
    return RunFacts(
        run_id="r",
        org_id="o",
        task="kickoff",
        projects=("east",),
        intents=tuple(
            RunStep(tool="email.send", justification=justification, status=s, reach=("east",))
            for s in statuses
        ),
    )


def test_a_run_is_an_episode_once_it_is_settled() -> None:
    assert run_episode(_run("allow", "approved")) == ((STEP, STEP), True, ("east",))
    assert run_episode(_run("allow", "reject")) is not None
    assert run_episode(_run("allow", "reject"))[1] is False  # type: ignore[index]
    assert run_episode(_run("allow", "hold")) is None
    assert run_episode(_run()) is None
    (step,), _, _ = run_episode(_run("allow", justification="  ")) or ((), None, ())
    assert step.text == "kickoff"
