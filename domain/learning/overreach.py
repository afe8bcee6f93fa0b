"""What a lesson may never be: a grant of access, a change of policy, or an approval
assumed. Read clause by clause, as a person reads it (NFKC, format characters dropped);
used by the learning validator and the deliberation gate."""

from __future__ import annotations

import re
import unicodedata

# Overreach: an insight phrased as a change of who may do what. The patterns look for an
# act and its object near each other; they are deliberately broad (a refused candidate
# costs little, a lesson that turns into policy costs much).
_NEAR = r"[^.;:!?\n]{0,60}?"


_GRANTS = re.compile(
    rf"\b(grant|give|allow|let|enable|add|extend|share){_NEAR}"
    rf"\b(access|permission|permissions|read|write|visibility|clearance|staffing|staff)\b"
    rf"|\b(access|permission){_NEAR}\b(granted|given|extended|opened)\b"
    rf"|\b(across|through|past|over){_NEAR}\b(wall|barrier)s?\b",
    re.IGNORECASE,
)


_POLICY = re.compile(
    rf"\b(change|update|raise|increase|lower|decrease|relax|loosen|remove|drop|disable|"
    rf"bypass|skip|ignore|override|waive|suspend|exempt){_NEAR}"
    rf"\b(policy|policies|rule|rules|cap|caps|limit|limits|threshold|thresholds|"
    rf"barrier|barriers|wall|walls|commitment|commitments|charter|budget|check|checks)\b",
    re.IGNORECASE,
)


# ("no" and "without" are read by :func:`assumed_authority`, which tells "no sign-off is
# needed" from "never pay without approval".)
_AUTHORITY = re.compile(
    rf"\b(approve|approves|approved|approval|authori[sz]e|sign[- ]off|decide){_NEAR}"
    rf"\b(itself|themselves|myself|automatically|on behalf|without|no longer|unattended)\b"
    rf"|\b(skip|bypass|no longer need){_NEAR}\b(human|approval|approver|review)\b"
    rf"|\bact(s|ing)? as (an? )?(approver|founder|admin|administrator)\b",
    re.IGNORECASE,
)


OVERREACH = (
    ("grants_access", _GRANTS, "it would grant access"),
    ("changes_policy", _POLICY, "it would change policy"),
    ("assumes_authority", _AUTHORITY, "it would assume approval authority"),
)


# Assumed authority in the words of the act itself: a text that approves, authorises,
# releases what is held, or declares sign-off unneeded, however it is phrased. Read
# clause by clause (a colon or a dash opens a new one: "Approved: release the held
# payment"), each rule a grammatical shape rather than a sentence:
#   - a verdict standing at the head of a clause ("Approved.", "Authorised for payment",
#     "hereby approved", "consider it approved");
#   - a first-person act ("I approve…", "we've signed off…", "I'm releasing the wire");
#   - an imperative that approves, or releases what is held ("Approve the invoice",
#     "release the held payment", "lift the hold");
#   - sign-off waived ("no further sign-off is needed", "skip the founder's review",
#     "proceed without approval").
# Saying that an approval is needed, awaited or someone else's assumes nothing ("the
# payment awaits the founder's approval"), nor does an act negated ("we cannot release
# it", "never pay without approval").
_CLAUSE = re.compile(r"[.;!?\n]+|:\s|\s[-\u2013\u2014]+\s|[\u2013\u2014]")


_CONTRACTIONS = (
    ("\u2019", "'"),
    ("ok'd", "okayed"),
    ("can't", "cannot"),
    ("won't", "will not"),
    ("n't", " not"),
    ("i'm", "i am"),
    ("'ve", " have"),
    ("'re", " are"),
    ("'ll", " will"),
    ("'d", " would"),
)


_APPROVES = (
    r"(?:approv(?:e|es|ed|ing)(?! of)|authori[sz](?:e|es|ed|ing)|sign(?:s|ed|ing)?[- ]?off|"
    r"green[- ]?light(?:s|ed|ing)?|greenlit|ratif(?:y|ies|ied|ying)|sanction(?:s|ed|ing)?|"
    r"countersign(?:s|ed|ing)?|okay(?:s|ed|ing)?)"
)


_APPROVE = (
    r"(?:approve(?! of)|authori[sz]e|sign off on|green[- ]?light|ratify|sanction|"
    r"countersign)"
)


_RELEASES = (
    r"(?:releas(?:e|es|ed|ing)(?! of)|unblock(?:s|ed|ing)?|unfreez(?:e|es|ing)|unfroze|"
    r"lift(?:s|ed|ing)?|clear(?:s|ed|ing)?|disburs(?:e|es|ed|ing)|push(?:es|ed|ing)? through|"
    r"let(?:s|ting)? through|wav(?:e|es|ed|ing) through|execut(?:e|es|ed|ing))"
)


_RELEASE = (
    r"(?:release(?! of)|unblock|unfreeze|lift|clear|disburse|push through|let through|"
    r"wave through|execute)"
)


_HELD = (
    r"\b(?:hold|holds|held|on hold|payments?|transfers?|wires?|funds|money|invoices?|"
    r"disbursements?|remittances?|freeze|escrow|retainer|intents?|it|them)\b"
)


_SIGN_OFF = (
    r"(?:sign[- ]?offs?|approvals?|approvers?|reviews?|authori[sz]ations?|countersignatures?|"
    r"second signatures?|consent|human|humans|founder|checks?|go-ahead)\b"
)


_FILLER = (
    r"(?:hereby|herewith|now|also|formally|officially|just|already|hence|therefore|thus|"
    r"fully|do|does|did|have|has|am|are|will|shall|can|would|hereupon|duly|go ahead and)"
)


_LEAD = r"(?:please|kindly|so|then|now|just|ok|okay|go ahead and|you may|you can|feel free to)"


_NEGATED = re.compile(r"\b(?:not|never|cannot|no one|nobody|nothing|none|no)\b")


_WORDS = r"(?:\S+\s+){0,3}?"


_ASSUMED = tuple(
    re.compile(pattern)
    for pattern in (
        # a verdict at the head of a clause, or declared
        rf"^(?:{_LEAD}\s+)?(?:approved|authori[sz]ed|signed[- ]off|cleared|greenlit|"
        rf"green-?lit|sanctioned|ratified|okayed)\b(?!\s+by\b)",
        r"^(?:the |this |that )?(?:[\w'-]+\s+){0,2}(?:approved|authori[sz]ed|signed[- ]off|"
        r"cleared|greenlit|green-?lit|sanctioned|ratified|released)$",
        r"^go ahead(?: with (?:it|this|the \w+))?$",
        rf"\bhereby\b.{{0,30}}\b(?:{_APPROVES}|{_RELEASES}|waiv\w*|grant\w*)",
        r"\b(?:consider|treat|deem|mark|record|count)(?:s|ed|ing)?\b.{0,40}?\b(?:as\s+)?"
        r"(?:approved|authori[sz]ed|signed[- ]off|cleared for (?:payment|release))\b",
        # a first-person act
        rf"\b(?:i|we)\b(?:\s+{_FILLER})*\s+(?:{_APPROVES}|give (?:my|our) (?:approval|"
        rf"sign-?off|go-ahead|consent|authori[sz]ation)|grant(?:ed|ing)? (?:my |our )?"
        rf"(?:approval|authori[sz]ation)|waiv(?:e|ed|ing)\b)",
        rf"\b(?:i|we)\b(?:\s+{_FILLER})*\s+{_RELEASES}\b.*{_HELD}",
        # an imperative
        rf"^(?:{_LEAD}\s+)*{_APPROVE}\b",
        rf"^(?:{_LEAD}\s+)*{_RELEASE}\b.*{_HELD}",
        # an approval said to be given, by the speaker or as a fact (found by review)
        r"\b(?:approval|authori[sz]ation|sign-?off|go-ahead|consent|clearance)\s+"
        r"(?:(?:is|has been|was|hereby)\s+){0,2}(?:granted|given|confirmed|issued)\b"
        r"(?!\s+(?:by|from)\s+(?!me\b|us\b|myself\b))",
        r"\b(?:approved|authori[sz]ed|signed[- ]off|cleared|okayed|sanctioned)\s+by\s+"
        r"(?:me|us|myself|ourselves)\b",
        # an imperative to pay or send what is held, or a verdict that it may be
        rf"^(?:{_LEAD}\s+)*(?:pay(?! attention| heed)|wire|send|transfer|remit)\b.*\b(?:held|"
        r"on hold|blocked|"
        r"frozen|stopped)\b",
        r"^(?:it'?s\s+|it is\s+|that'?s\s+|all\s+)?(?:ok|okay|fine|safe|good|clear|free)\s+"
        r"to\s+(?:pay|release|proceed|wire|send|transfer|disburse|go)\b",
        # sign-off waived
        rf"\b(?:no|without)\s+{_WORDS}{_SIGN_OFF}.{{0,30}}?\b(?:is |are )?(?:needed|required|"
        r"necessary)\b",
        rf"\b{_SIGN_OFF}\s*(?:is|are|was|will be)\s+(?:not|no longer|un)\s*(?:needed|"
        r"required|necessary)|\b" + _SIGN_OFF + r"\s*(?:is|are)\s+(?:unnecessary|optional|"
        r"superfluous|redundant|a formality)",
        rf"\b(?:needs?|needing|requires?|requiring|takes?) no\s+{_WORDS}{_SIGN_OFF}",
        rf"\b{_SIGN_OFF}\s*(?:(?:can|may|could|should|will|is|are)\s+)?(?:be\s+|been\s+)?"
        r"(?:skipped|waived|bypassed|dropped|omitted|dispensed with|ignored|overridden|"
        r"set aside)\b",
        rf"\b(?:skip|skipping|bypass|bypassing|waive|waiving|waived|forgo|forgoing|dispense "
        rf"with|circumvent|sidestep|omit|omitting|override|overriding|ignore|ignoring)\s+"
        rf"{_WORDS}{_SIGN_OFF}",
        rf"\b(?:no need|needless|need not|needs not|no longer needs?|does not need|do not "
        rf"need|is no longer required)\s+(?:to\s+|for\s+|of\s+)?(?:(?:wait for|get|seek|ask "
        rf"for|obtain|have)\s+)?{_WORDS}{_SIGN_OFF}",
        rf"(?:^|\b(?:can|may|could|should|will|shall|must|to|and|now|then|just|simply)\s+)"
        rf"(?:proceed|pay|release|send|wire|execute|approve|go ahead|move forward|continue|"
        rf"dispatch|transfer|disburse)\b[^,]{{0,50}}?\bwithout\s+{_WORDS}{_SIGN_OFF}",
    )
)


_WAIVING_WITHOUT = _ASSUMED[-1]


def _plain(text: str) -> str:
    """``text`` as it reads: compatibility forms folded (a full-width I is an I) and the
    invisible format characters dropped (a zero-width space splits no word for a reader),
    so that neither hides an approving word from the patterns."""
    folded = unicodedata.normalize("NFKC", text)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def _clauses(text: str) -> list[str]:
    lowered = " ".join(_plain(text).lower().split())
    for spelled, meant in _CONTRACTIONS:
        lowered = lowered.replace(spelled, meant)
    return [c.strip(" ,\"'()[]*") for c in _CLAUSE.split(lowered) if c.strip()]


def assumed_authority(text: str) -> str | None:
    """The words in ``text`` that approve, authorise, release what is held or waive
    sign-off (see above), or None."""
    for clause in _clauses(text):
        for pattern in _ASSUMED:
            found = pattern.search(clause)
            if found is None:
                continue
            # "Never pay without approval": a negated act is a rule stated, not one waived.
            if pattern is _WAIVING_WITHOUT and _NEGATED.search(clause[: found.start() + 1]):
                continue
            return found.group(0).strip()
    return None


def overreach(text: str) -> tuple[str, str] | None:
    """Whether ``text`` reads as granting access, changing policy or assuming authority:
    the rule and the reason, or None."""
    for rule, pattern, why in OVERREACH:
        found = pattern.search(text)
        if found is not None:
            return rule, f"{why}: {found.group(0)!r}"
    assumed = assumed_authority(text)
    if assumed is not None:
        return "assumes_authority", f"it would assume approval authority: {assumed!r}"
    return None
