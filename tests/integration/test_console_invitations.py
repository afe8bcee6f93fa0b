"""Invitations, adversarially, on SQLite and PostgreSQL: a link is signed (a forged or
altered one invites nobody), ages out, and is spent by the first to accept it (two at
once: exactly one joins); a sign-in that already proves someone joins no one else; an
agent, a departed colleague or a colleague already signed in cannot be joined as."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from itsdangerous import TimestampSigner

from api.console import session as cookies
from domain.errors import Conflict, NotFound
from domain.organization.contracts import Principal
from domain.organization.kinds import IdentityKind, PrincipalKind, PrincipalStatus
from tests.support import Firm
from usecases import ingress, organization
from usecases.context import Ports

KEY = bytes(range(32))


def _invited(services: Ports, firm: Firm) -> str:
    cleo = organization.add_human(services, firm.org, firm.founder, "cleo@hv.example", "Cleo")
    return cleo.id


def test_a_link_invites_its_colleague_once_and_the_sign_in_proves_them(
    firm: Firm, services: Ports
) -> None:
    cleo = _invited(services, firm)
    token = cookies.invitation(KEY, firm.org, cleo)
    assert cookies.invited(KEY, token) == (firm.org, cleo)
    joined = ingress.accept_invitation(services, firm.org, cleo, "cleo-subject")
    assert joined.id == cleo
    assert ingress.proven(services, IdentityKind.OIDC, "cleo-subject").id == cleo
    # spent: nobody else joins as Cleo with it, not even Cleo again
    for subject in ("mallory-subject", "cleo-subject"):
        with pytest.raises((NotFound, Conflict)):
            ingress.accept_invitation(services, firm.org, cleo, subject)
    assert services.directory.identity(IdentityKind.OIDC, "mallory-subject") is None
    # on the chain, as Cleo's own act
    (entry,) = [e for e in services.audit.entries(firm.org) if e.rule == "identity_linked"][-1:]
    assert entry.actor == cleo


def test_only_an_active_human_not_yet_signed_in_may_be_joined_as(
    firm: Firm, services: Ports
) -> None:
    with pytest.raises(NotFound):  # an agent
        ingress.accept_invitation(services, firm.org, firm.agents["ledger"], "x-subject")
    ingress.link_identity(
        services, firm.org, firm.founder, firm.founder, IdentityKind.OIDC, "ada-subject"
    )
    with pytest.raises(NotFound):  # the founder, who signs in already
        ingress.accept_invitation(services, firm.org, firm.founder, "y-subject")
    with services.configuration.change(firm.org, firm.founder, services.clock) as change:
        departed = change.add_principal(
            Principal(
                id="departed",
                org_id=firm.org,
                kind=PrincipalKind.HUMAN,
                handle="dora",
                display_name="Dora",
                email="dora@hv.example",
                status=PrincipalStatus.SUSPENDED,
            )
        )
    with pytest.raises(NotFound):  # a colleague who has left
        ingress.accept_invitation(services, firm.org, departed.id, "w-subject")
    with pytest.raises(NotFound):  # someone of no firm, or of another
        ingress.accept_invitation(services, "another-org", _invited(services, firm), "z")


def test_a_sign_in_that_proves_someone_joins_no_one_else(firm: Firm, services: Ports) -> None:
    cleo = _invited(services, firm)
    ingress.link_identity(
        services, firm.org, firm.founder, firm.associate, IdentityKind.OIDC, "ben-subject"
    )
    with pytest.raises(Conflict):
        ingress.accept_invitation(services, firm.org, cleo, "ben-subject")
    assert ingress.proven(services, IdentityKind.OIDC, "ben-subject").id == firm.associate


def test_two_accepting_at_once_one_joins(firm: Firm, services: Ports) -> None:
    cleo = _invited(services, firm)
    won: list[str] = []
    lost: list[Exception] = []

    def accept(subject: str) -> None:
        try:
            ingress.accept_invitation(services, firm.org, cleo, subject)
            won.append(subject)
        except (NotFound, Conflict) as refused:
            lost.append(refused)

    threads = [threading.Thread(target=accept, args=(f"s-{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and len(lost) == 3
    linked = [i for i in services.directory.identities(firm.org) if i.principal_id == cleo]
    assert [i.external_id for i in linked] == won


def test_an_old_link_invites_nobody(monkeypatch: pytest.MonkeyPatch) -> None:
    now = time.time()
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: int(now - 8 * 24 * 3600))
    old = cookies.invitation(KEY, "org", "cleo")
    monkeypatch.undo()
    assert cookies.invited(KEY, old) is None
    assert cookies.invited(KEY, cookies.invitation(KEY, "org", "cleo")) == ("org", "cleo")


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0), st.characters(codec="ascii", exclude_categories=("Cc",)))
def test_an_altered_link_invites_nobody(at: int, char: str) -> None:
    token = cookies.invitation(KEY, "org-1", "cleo")
    i = at % len(token)
    altered = token[:i] + char + token[i + 1 :]
    found = cookies.invited(KEY, altered)
    assert (
        found is None
        or (altered == token and found == ("org-1", "cleo"))
        or (
            found == ("org-1", "cleo")  # base64 padding bits: the same payload, the same colleague
        )
    )
    # and a link signed with another key invites nobody here
    assert cookies.invited(bytes(32), token) is None
