"""Egress: where an outbound or irreversible action goes, and whether its projects have
established that destination.

A hijacked model can word an ordinary email or an ordinary payment; it cannot make a new
recipient, a new payee or new bank details established. So the broker holds an action
whose destination is not established for **every** project it reaches (its declared
projects, what it cites, what its run read): a human sees where it would go and why,
and may establish the destination while approving. The destinations are:

- the addresses in a recipient parameter (``to``), each established as an address, by its
  domain, or as a colleague with standing on every project of the reach;
- the payee (and, when the payment names one, the bank account) of a payment;
- the links, addresses and bank details written into content that leaves the firm (an
  email's subject and body): a link to an unknown site is a destination too.

When the run read outside content (an inbound email, an invoice, a web page: see
:func:`is_outside`), the hold names the source where a new destination first appears;
an outgoing text that copies a long passage of outside content is held as a relay; and
a message drawn on outside content (sharing its words) from a sender its projects have
not established is held too (what it says may be that sender's words, reworded).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from domain.governance.addresses import (
    address,
    addresses_in,
    domain_of,
    fold,
    fold_account,
    fold_domain,
    fold_name,
    links_in,
    recipient_list,
    within,
)
from domain.governance.outbound import Outbound, content_words, shingles
from domain.memory.release import StoredNode
from domain.organization.contracts import Destination, Principal, Staffing, ToolSpec
from domain.organization.kinds import DestinationKind, PrincipalKind, PrincipalStatus, StaffRole
from domain.words import moment

MAX_RECIPIENTS = 5
"""Distinct outside recipients one run may write to without a human: more is a mailing,
and a mailing is a person's decision (a hijacked run that writes to every client)."""

OUTSIDE_KINDS = frozenset(
    {"email", "invoice", "web", "message", "chat", "attachment", "letter", "form", "ticket"}
)
"""Kinds of memory record that arrive from outside the firm."""


def normalized(kind: DestinationKind, value: str) -> str:
    """``value`` of a destination of ``kind`` as it is kept and compared: a domain's
    A-labels (from a bare domain, ``@domain`` or a link), a mailbox (``Name <a@b>``
    read as ``a@b``), a payee's folded name. Empty when it is none of these."""
    if kind is DestinationKind.EMAIL_DOMAIN:
        text = value.strip()
        hosts = links_in(text) if "/" in text else []
        return hosts[0] if hosts else fold_domain(text)
    if kind is DestinationKind.EMAIL:
        return address(value) or ""
    return fold_name(value)


def is_outside(kind: str, source: str | None) -> bool:
    """Whether a memory record came from outside the firm: a kind that arrives from
    outside, or a source that is an address or a link. Everything else was written
    inside (a note, a procedure, meeting minutes)."""
    if kind in OUTSIDE_KINDS:
        return True
    return source is not None and ("@" in source or "://" in source)


@dataclass(frozen=True, slots=True)
class Source:
    """A record the run read: what the provenance of a hold names."""

    ref: str
    kind: str
    source: str | None
    received_at: datetime | None
    text: str
    outside: bool = True
    """Whether it came from outside the firm (:func:`is_outside`)."""

    def words(self) -> str:
        """How an owner reads where it came from: ``the inbound invoice inv-0412,
        received 6 Dec 2026, 10:02 UTC from billing@…``, or ``the note n-7, filed
        1 Dec 2026, 09:00 UTC (forwarded by Ben)`` for one written inside."""
        at = "" if self.received_at is None else moment(self.received_at)
        if not self.outside:
            what = f"the {self.kind} {self.ref}" + (f", filed {at}" if at else "")
            return what + (f" ({self.source})" if self.source else "")
        what = f"the inbound {self.kind} {self.ref}" + (f", received {at}" if at else "")
        return what + (f" from {self.source}" if self.source else "")


def read_sources(nodes: Iterable[StoredNode]) -> tuple[Source, ...]:
    """The records a run read, as a hold names them, each marked outside or not."""
    return tuple(
        Source(n.ref, n.kind, n.source, n.kept_at, n.text, is_outside(n.kind, n.source))
        for n in nodes
    )


@dataclass(frozen=True, slots=True)
class Found:
    """One destination an action would reach that its projects have not established."""

    what: str
    """In an owner's words: ``the recipient cfo@x.example``."""
    value: str
    """What to look for in the outside content the run read."""
    projects: tuple[str, ...]
    """The projects of the reach that have not established it."""
    establish: tuple[DestinationKind, str] | None = None
    """What the founder would establish to release it (kind, value); None when the
    destination is not one that can be established as it stands."""


_ROLES = frozenset(StaffRole)


@dataclass(frozen=True, slots=True)
class Counterparties:
    """The destinations and colleagues one decision checks an action against."""

    destinations: Mapping[str, tuple[Destination, ...]]
    """Established destinations by project (current or not; checked at ``now``)."""
    colleagues: Mapping[str, tuple[Staffing, ...]]
    """Each human colleague's staffing rows, by their folded email address."""
    own_domains: frozenset[str]
    """The firm's own domains (its people's addresses): links to them are not new."""
    now: datetime

    def _current(self, project: str, kind: DestinationKind) -> Iterable[Destination]:
        return (
            d for d in self.destinations.get(project, ()) if d.kind is kind and d.current(self.now)
        )

    def recipient_missing(self, address: str, reach: Iterable[str]) -> tuple[str, ...]:
        """The projects of ``reach`` that have not established ``address`` (folded): as an
        address, by its domain, or as a colleague staffed there now."""
        domain = domain_of(address)
        rows = self.colleagues.get(address, ())
        standing = {s.project for s in rows if s.active_at(self.now) and s.role in _ROLES}
        missing = []
        email, by_domain = DestinationKind.EMAIL, DestinationKind.EMAIL_DOMAIN
        for project in reach:
            if project in standing:
                continue
            # one pass over the project's destinations (this runs under the lock)
            for d in self.destinations.get(project, ()):
                if (
                    (d.kind is email and d.value == address)
                    or (
                        d.kind is by_domain
                        and (domain == d.value or domain.endswith("." + d.value))
                    )
                ) and d.current(self.now):
                    break
            else:
                missing.append(project)
        return tuple(sorted(missing))

    def domain_missing(self, domain: str, reach: Iterable[str]) -> tuple[str, ...]:
        """The projects of ``reach`` for which a link to ``domain`` is new: only a domain
        established as such (or the firm's own) is known; one trusted address is not its
        whole domain."""
        if within(domain, self.own_domains):
            return ()
        missing = []
        for project in reach:
            known = {d.value for d in self._current(project, DestinationKind.EMAIL_DOMAIN)}
            if not within(domain, known):
                missing.append(project)
        return tuple(sorted(missing))

    def payee(self, project: str, payee: str) -> Destination | None:
        return next(
            (d for d in self._current(project, DestinationKind.PAYEE) if d.value == payee), None
        )

    def account_missing(self, account: str, reach: Iterable[str]) -> tuple[str, ...]:
        """The projects of ``reach`` on which no payee is established at ``account``."""
        return tuple(
            sorted(
                project
                for project in reach
                if not any(
                    d.account == account for d in self._current(project, DestinationKind.PAYEE)
                )
            )
        )


def recipients_of(tool: ToolSpec | None, payload: Mapping[str, object]) -> frozenset[str]:
    """The addresses (folded) an action's recipient parameter names; none for a tool
    that has none."""
    if tool is None or tool.recipient_param is None:
        return frozenset()
    return frozenset(recipient_list(str(payload.get(tool.recipient_param, ""))) or ())


def colleagues_of(
    principals: Iterable[Principal], staffing: Mapping[str, Sequence[Staffing]]
) -> dict[str, tuple[Staffing, ...]]:
    """Each active human's staffing rows (``staffing`` by principal id), by their folded
    email address: a colleague staffed on a project is no new destination of it."""
    return {
        fold(p.email): tuple(staffing.get(p.id, ()))
        for p in principals
        if p.kind is PrincipalKind.HUMAN and p.status is PrincipalStatus.ACTIVE and p.email
    }


def new_destinations(out: Outbound, reach: Sequence[str], known: Counterparties) -> list[Found]:
    """Every destination of an action (see the module's docstring) that some project of
    ``reach`` has not established, in the order the payload names them."""
    found: list[Found] = []
    if out.recipients_raw is not None:
        if out.recipients is None:  # what a relay would deliver to is not plain: nothing is trusted
            shown = " ".join(out.recipients_raw.split())[:200]
            found.append(
                Found(
                    f"the recipients {shown!r}, not plainly addresses",
                    out.recipients_raw,
                    tuple(reach),
                )
            )
        for mailbox in out.recipients or ():
            missing = known.recipient_missing(mailbox, reach)
            if missing:
                found.append(
                    Found(
                        f"the recipient {mailbox}",
                        mailbox,
                        missing,
                        (DestinationKind.EMAIL, mailbox),
                    )
                )
    if out.payee is not None:
        found += _payment(out, reach, known)
    if out.text.strip():
        found += _content(out, reach, known, found)
    return found


def _payment(out: Outbound, reach: Sequence[str], known: Counterparties) -> list[Found]:
    assert out.payee is not None and out.payee_shown is not None
    shown, payee, folded = out.payee_shown, out.payee, out.account
    result: list[Found] = []
    unknown = [p for p in reach if known.payee(p, payee) is None]
    if unknown:
        at = "" if folded is None else f", at the bank account {_tail(folded)}"
        result.append(
            Found(
                f"the payee {shown}{at}",
                shown,
                tuple(sorted(unknown)),
                (DestinationKind.PAYEE, shown),
            )
        )
    if folded is not None:
        changed = [
            p for p in reach if (d := known.payee(p, payee)) is not None and d.account != folded
        ]
        if changed:
            result.append(
                Found(
                    f"the bank account {_tail(folded)} for {shown}",
                    folded,
                    tuple(sorted(changed)),
                    (DestinationKind.PAYEE, shown),
                )
            )
    return result


def _content(
    out: Outbound, reach: Sequence[str], known: Counterparties, already: list[Found]
) -> list[Found]:
    seen = {f.value for f in already}
    result: list[Found] = []
    for mailbox in out.addresses:
        # the recipient rule exactly (the firm's own addresses aside): naming an address
        # in a message sends the reader there
        missing = known.recipient_missing(mailbox, reach)
        if within(domain_of(mailbox), known.own_domains) or mailbox in seen or not missing:
            continue
        result.append(
            Found(
                f"the address {mailbox} in the text",
                mailbox,
                missing,
                (DestinationKind.EMAIL, mailbox),
            )
        )
    for host in out.links:
        missing = known.domain_missing(host, reach)
        if missing:  # approved once; trusting a site is establishing its domain, by hand
            result.append(Found(f"a link to {host} in the text", host, missing))
    for account in out.accounts:
        missing = known.account_missing(account, reach)
        if missing:
            result.append(Found(f"the bank account {_tail(account)} in the text", account, missing))
    return result


def _tail(account: str) -> str:
    """Bank details as an owner recognises them without reading them out: the last four."""
    return f"ending {account[-4:]}" if len(account) > 4 else account


DRAWN_WORDS = 3
DRAWN_SHARE = 0.25
"""A message draws on a source when at least this many of its content words (and this
share of them) are the source's: it is about what the source says. Recall brings back
records near the task, and a message that shares nothing with one did not come from it."""


def draws_on(mine: frozenset[str], source: Source) -> bool:
    """Whether a text of content words ``mine`` (:attr:`Outbound.words`) shares enough
    of them with ``source`` to be drawn on it."""
    shared = mine & content_words(source.text)
    return len(shared) >= DRAWN_WORDS and len(shared) >= DRAWN_SHARE * len(mine)


def unknown_senders(
    sources: Sequence[Source], reach: Sequence[str], known: Counterparties, words: frozenset[str]
) -> list[Source]:
    """The outside sources a text of content ``words`` draws on whose sender no project of
    ``reach`` has established (by address, domain or link; a source naming neither is
    unknown)."""
    out = []
    for s in sources:
        if not s.outside or not draws_on(words, s):
            continue
        named, hosts = _sender(s.source or "")
        if named:
            fine = all(not known.recipient_missing(a, reach) for a in named)
        elif hosts:
            fine = all(not known.domain_missing(h, reach) for h in hosts)
        else:
            fine = False
        if not fine:
            out.append(s)
    return out


@lru_cache(maxsize=1024)
def _sender(said: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The addresses and link hosts a record's ``source`` names (one sender, many runs)."""
    return tuple(addresses_in(said)), tuple(links_in(said))


def first_seen(value: str, sources: Sequence[Source]) -> Source | None:
    """The earliest kept record the run read whose text holds ``value`` (as addresses,
    links and accounts compare)."""
    key, squeezed = fold(value), fold_account(value)
    hits = [
        s
        for s in sources
        if key in _folded(s.text) or (len(squeezed) >= 6 and squeezed in _squeezed(s.text))
    ]
    return min(
        hits,
        key=lambda s: (s.received_at is None, s.received_at or datetime.min, s.ref),
        default=None,
    )


@lru_cache(maxsize=1024)
def _folded(text: str) -> str:
    return fold(text)


@lru_cache(maxsize=1024)
def _squeezed(text: str) -> str:
    return fold_account(text)


def relayed(mine: frozenset[tuple[str, ...]], sources: Sequence[Source]) -> Source | None:
    """The first outside source that a text of ``mine`` shingles
    (:attr:`Outbound.shingles`) copies a passage of."""
    if not mine:
        return None
    return next((s for s in sources if s.outside and mine & shingles(s.text)), None)
