"""The needs-you queue's fold of an organization's chain, kept and extended: the story
of entries folded in any number of steps is the story of them folded at once; a chain
that does not continue the one folded (restored, shorter, or another of the same
length) is folded again from its start; a fold cut short leaves no half story behind."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.audit.chain import AuditEntry, ChainHead, ChainVerification
from domain.needs_you.chain import read_chain
from usecases.audit_stories import ChainStories

ORG = "org-1"


def _chain(kinds: list[int], salt: str = "") -> list[AuditEntry]:
    """A chain of run failures, retries and questions (what the fold reads by run)."""
    entries, prev = [], "0" * 64
    for seq, kind in enumerate(kinds, start=1):
        run = f"run-{seq % 5}"
        stage, rule, payload = [
            ("run", "run_failed", {"run_id": run, "reason": "boom"}),
            ("run", "run_retried", {"run_id": run, "retry_run_id": f"{run}-r{seq}"}),
            ("run", "agent_question", {"run_id": run, "question": "which?", "summary": ""}),
            ("parser", "malformed_json", {"run_id": run, "reason": "not JSON"}),
        ][kind]
        digest = hashlib.sha256(f"{salt}{prev}{seq}".encode()).hexdigest()
        entries.append(
            AuditEntry(
                org_id=ORG,
                seq=seq,
                at=f"2026-12-01T10:00:{seq % 60:02d}.000000+00:00",
                event_key=f"k{seq}{salt}",
                actor="agent",
                intent_id=None,
                decision="x",
                stage=stage,
                rule=rule,
                payload=payload,
                prev_hash=prev,
                entry_hash=digest,
            )
        )
        prev = digest
    return entries


class Chain:
    """A hand-written audit reader over a list that tests grow, cut or replace."""

    def __init__(self, entries: list[AuditEntry]) -> None:
        self.all = entries
        self.fail_after: int | None = None

    def entries(self, org_id: str, after_seq: int = 0) -> list[AuditEntry]:
        return [e for e in self.all if e.seq > after_seq]

    def of_intent(self, org_id: str, intent_id: str) -> list[AuditEntry]:
        return [e for e in self.all if e.intent_id == intent_id]

    def head(self, org_id: str) -> ChainHead | None:
        last = self.all[-1] if self.all else None
        return None if last is None else ChainHead(seq=last.seq, entry_hash=last.entry_hash)

    def verify(self, org_id: str) -> ChainVerification:
        raise NotImplementedError

    def verified_entries(self, org_id: str) -> tuple[ChainVerification, list[AuditEntry]]:
        raise NotImplementedError


KINDS = st.lists(st.integers(0, 3), min_size=1, max_size=60)


@given(KINDS, st.lists(st.integers(1, 60), max_size=5))
def test_folding_in_steps_is_folding_at_once(kinds: list[int], cuts: list[int]) -> None:
    full = _chain(kinds)
    chain, stories = Chain([]), ChainStories()
    for cut in [*sorted(cuts), len(full)]:
        chain.all = full[: min(cut, len(full))]
        with stories.story(chain, ORG) as story:
            assert story == read_chain(chain.all)


def test_a_chain_that_does_not_continue_the_folded_one_is_folded_again() -> None:
    stories = ChainStories()
    first = Chain(_chain([0, 1, 2, 3, 0, 0]))
    with stories.story(first, ORG):
        pass
    for other in (
        _chain([2, 2]),  # restored from an older backup: shorter
        _chain([3, 3, 3, 3, 3, 3], salt="b"),  # another chain, as long
        _chain([1, 1, 1, 1, 1, 1, 2, 2], salt="c"),  # another, longer, not linking on
    ):
        chain = Chain(other)
        with stories.story(chain, ORG) as story:
            assert story == read_chain(other)


def test_a_fold_cut_short_leaves_no_half_story() -> None:
    stories = ChainStories()
    chain = Chain(_chain([0, 1, 2]))
    with stories.story(chain, ORG):
        pass
    broken = _chain([0, 1, 2, 0, 0])
    bad = broken[3].model_copy(update={"payload": None})  # the fold trips on it
    chain.all = [*broken[:3], bad, broken[4]]
    with pytest.raises(AttributeError), stories.story(chain, ORG):
        pass
    chain.all = broken
    with stories.story(chain, ORG) as story:
        assert story == read_chain(broken)


def test_only_the_most_recently_read_organizations_are_kept() -> None:
    stories = ChainStories(kept=2)
    for org in ("a", "b", "c"):
        with stories.story(Chain([]), org):
            pass
    assert list(stories._by_org) == ["b", "c"]
