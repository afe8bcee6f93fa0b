"""The trained name and address tagger: it loads from the committed files, finds names
and addresses the rules' lists never held, leaves checked identifiers to the rules,
keeps its spans well formed on any text, and its training and held-out data are sound."""

from __future__ import annotations

import json
import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.memory.entity_tagger import BITS, CLASSES, load, local_tagger, softmax, spans_of
from domain.memory.pii import detect
from domain.memory.screen import screen
from evals import entity_corpus, heldout
from evals.train_entities import blank_tagger, fit, matrix, token_labels

# Written for this test: names and streets in none of the training names, frames or
# address shapes (checked below), nor in the held-out sets.
UNSEEN = [
    (
        "Kindly courier the originals to Ifeoluwa Adebanjo-Okafor before the board meets.",
        "person",
        "Ifeoluwa Adebanjo-Okafor",
    ),
    ("Der Vertrag wurde von Frau Radka Vlčková gegengezeichnet.", "person", "Radka Vlčková"),
    (
        "Minutes taken by Tsegaye Woldemichael; next review in March.",
        "person",
        "Tsegaye Woldemichael",
    ),
    (
        "Dostawa: ul. Zielna 7/12, 00-108 Warszawa, do 14:00.",
        "address",
        "ul. Zielna 7/12",
    ),
    (
        "Számla címe: Szentkirályi u. 28., 1088 Budapest.",
        "address",
        "Szentkirályi u. 28",
    ),
]


def _found(text: str, kind: str, part: str) -> bool:
    start = text.index(part)
    return any(
        s.kind == kind and s.start < start + len(part) and start < s.end
        for s in detect(text, local_tagger())
    )


def test_the_committed_model_and_lexicon_load() -> None:
    tagger = local_tagger()
    assert tagger.weights.shape == (1 << BITS, len(CLASSES))
    assert np.isfinite(tagger.weights).all()
    assert tagger.lexicon_code("Krisztián") & 3  # a first name somewhere
    assert tagger.lexicon_code("Kopie") >> 4 & 7  # a common (German) word
    assert tagger.lexicon_code("xqzvbnw") == 0


def test_names_and_addresses_no_list_here_holds_are_found() -> None:
    frames = entity_corpus.FRAMES.read_text(encoding="utf-8")
    names = (entity_corpus.DATA / "names.json").read_text(encoding="utf-8")
    for text, kind, part in UNSEEN:
        word = max(part.split(), key=len)
        assert word not in frames and word not in names, word
        assert not any(s.kind == kind for s in detect(text)), text  # the rules alone miss it
        assert _found(text, kind, part), text


def test_capitalised_words_that_are_no_one_are_left_alone() -> None:
    text = (
        "Betreff: Angebot für die Wartung. Die Rechnung geht an die Buchhaltung. "
        "Quarterly Review with Finance, Operations and Sales (EMEA) on Monday."
    )
    assert not [s for s in detect(text, local_tagger()) if s.kind in ("person", "address")]


def test_a_firm_named_after_a_person_is_not_a_person() -> None:
    text = "Invoice from Tanaka Precision Co. for the gaskets; contact Yuki Morita."
    spans = [text[s.start : s.end] for s in detect(text, local_tagger()) if s.kind == "person"]
    assert "Yuki Morita" in spans
    assert not any("Tanaka" in s for s in spans)


def test_what_a_pattern_checked_stays_what_it_is() -> None:
    text = "Refund to IBAN DE89 3704 0044 0532 0130 00, call +49 30 1234 5678, ref INV-2026-0042."
    kinds = {s.kind for s in detect(text, local_tagger())}
    assert {"iban", "phone"} <= kinds
    assert "address" not in kinds and "person" not in kinds


def test_the_screen_passes_the_finder_through() -> None:
    text = "Please call Ifeoluwa Adebanjo-Okafor about the renewal."
    assert not screen(text).detail.get("person")
    assert screen(text, None, local_tagger()).detail.get("person") == 1


def test_spans_join_hyphenated_names_and_drop_what_cannot_be_one() -> None:
    def kinds(
        text: str, tokens: list[tuple[int, int]], rows: list[list[float]]
    ) -> list[tuple[str, str]]:
        spans = spans_of(text, tokens, np.array(rows, dtype=np.float32))
        return [(s.kind, text[s.start : s.end]) for s in spans]

    person, address, other = [0.1, 0.9, 0.0], [0.0, 0.0, 1.0], [0.9, 0.1, 0.0]
    # The hyphen between two name tokens joins them, though the tagger calls it other.
    assert kinds("Jean-Baptiste", [(0, 4), (4, 5), (5, 13)], [person, other, person]) == [
        ("person", "Jean-Baptiste")
    ]
    # With a space around it, it does not.
    assert kinds("Jean - Paul", [(0, 4), (5, 6), (7, 11)], [person, other, person]) == [
        ("person", "Jean"),
        ("person", "Paul"),
    ]
    # An acronym alone is no name; an address needs a number.
    assert kinds("NI", [(0, 2)], [person]) == []
    assert kinds("Rue Haute", [(0, 3), (4, 9)], [address, address]) == []
    assert kinds("12 Rue", [(0, 2), (3, 6)], [address, address]) == [("address", "12 Rue")]
    # An initial keeps its dot; a run that leans to an address is one, whole.
    assert kinds("J. Smith", [(0, 1), (1, 2), (3, 8)], [person, person, person]) == [
        ("person", "J. Smith")
    ]
    assert kinds("Main 12", [(0, 4), (5, 7)], [person, address]) == [("address", "Main 12")]
    # A name stops at the line's end; an address does not.
    assert kinds(
        "Ann Lee\nLee Bros", [(0, 3), (4, 7), (7, 8), (8, 11), (12, 16)], [person] * 5
    ) == [
        ("person", "Ann Lee"),
        ("person", "Lee Bros"),
    ]
    assert kinds("5 Elm St\nLeeds", [(0, 1), (2, 5), (6, 8), (8, 9), (9, 14)], [address] * 5) == [
        ("address", "5 Elm St\nLeeds")
    ]


_PIECES = [*"Aa Bb Zz ÉéŁł 0123 ,.-'/\n:", "Anna ", "Str. ", "12 ", "Müller", "GmbH", "Ms "]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
def test_spans_are_well_formed_on_any_text(text: str) -> None:
    spans = local_tagger().entities(text)
    last = 0
    for span in spans:
        assert span.kind in ("person", "address")
        assert last <= span.start < span.end <= len(text)
        assert text[span.start].isalnum()
        last = span.end


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(UNSEEN), min_size=1, max_size=3))
def test_a_finding_does_not_depend_on_what_else_is_in_the_document(items) -> None:  # type: ignore[no-untyped-def]
    # Each sentence is found among the others too: the document's own features (a word
    # seen in lower case elsewhere) do not turn a name off.
    text = " ".join(t for t, _, _ in items)
    for _, kind, part in items:
        assert _found(text, kind, part)


def test_training_labels_tokens_by_their_span_and_a_short_fit_learns() -> None:
    assert token_labels(
        [(0, 4), (5, 10), (11, 13)], [{"type": "person", "start": 5, "end": 13}]
    ) == [0, 1, 1]
    rng = random.Random(3)
    filler = entity_corpus.Filler(rng)
    docs = [entity_corpus.fill(f, filler) for f in entity_corpus.frames()[:60]]
    indptr, index, label = matrix(blank_tagger(), docs)
    assert len(label) == len(indptr) - 1 and set(np.unique(label)) <= {0, 1, 2}
    from evals import train_entities

    before = train_entities.EPOCHS
    try:
        train_entities.EPOCHS = 15
        weights, bias = fit(indptr, index, label)
    finally:
        train_entities.EPOCHS = before
    tagger = blank_tagger()
    tagger.weights, tagger.bias = weights, bias
    said = softmax(tagger.token_scores(indptr, index)).argmax(axis=1)
    # Most tokens are neither: what counts is that names and addresses are learnt.
    for cls in (1, 2):
        assert float((said[label == cls] == cls).mean()) > 0.8, CLASSES[cls]


def test_the_held_out_sets_are_sound_and_apart_from_the_training_frames() -> None:
    frames = {f["text"] for f in entity_corpus.frames()}
    for name in ("pii_written.jsonl", "pii_faker.jsonl", "pii_structured.jsonl"):
        docs = heldout.read(heldout.HELDOUT / name)
        assert docs
        for doc in docs:
            assert doc["text"] not in frames
            for span in doc["spans"]:
                part = doc["text"][span["start"] : span["end"]]
                assert part and part == part.strip(), (name, doc.get("id"), span)
    injections = heldout.read(heldout.INJECTIONS)
    assert {d["label"] for d in injections} == {"attack", "benign"}
    supplement = {
        json.loads(line)["text"]
        for line in (heldout.HELDOUT.parent / "supplement" / "supplement.jsonl")
        .read_text()
        .splitlines()
    }
    assert not supplement & {d["text"] for d in injections}


def test_the_held_out_evaluation_reports_each_kind() -> None:
    rows = heldout.pii_rows(limit=20) + heldout.injection_rows(limit=20)
    names = {r.what for r in rows}
    assert "held out (written, unread): person recall" in names
    assert "held out (Faker): address precision" in names
    assert "held out (structured): iban recall" in names
    assert "held out injections: recall at 2% false refusals" in names
    assert all(0.0 <= r.measured <= 1.0 for r in rows)


def test_the_tagger_reads_the_committed_files_only(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import socket

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the tagger opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.chdir(tmp_path)
    assert load().entities("Dear Radka Vlčková,")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["card", "iban", "email", "phone", "person", "address"]),
            st.integers(0, 60),
            st.integers(1, 12),
        ),
        max_size=14,
    )
)
def test_overlapping_findings_are_resolved_as_the_plain_rule_says(found) -> None:  # type: ignore[no-untyped-def]
    # detect keeps, in priority order, each finding that overlaps none kept before; it
    # does so in n log n. Held against the quadratic statement of the rule.
    from domain.memory import pii
    from domain.memory.release import Span

    spans = [Span(kind=k, start=a, end=a + n) for k, a, n in found]

    class Fixed:
        def entities(self, text: str) -> list[Span]:
            return [s for s in spans if s.kind in ("person", "address")]

    text = "x" * 80
    expected: list[Span] = []
    for span in sorted(
        [s for s in spans if s.kind in ("person", "address")],
        key=lambda s: (pii._PRIORITY[s.kind], s.start, -s.end),
    ):
        if all(span.end <= c.start or span.start >= c.end for c in expected):
            expected.append(span)
    assert list(detect(text, Fixed())) == sorted(expected, key=lambda s: s.start)


def test_ordinary_business_numbers_are_not_phone_numbers() -> None:
    for text in [
        "Hotel booking 87654321",
        "Order number 12345678",
        "Reference: 00012345",
        "Open 08.00 - 17.00",
        "Datum: 12. 03. 2024",
        "version 10.0.19045.2965",
        "ISBN 978-3-16-148410-0",
        "Case 2024-1234567",
        "EUR 1.234.567",
    ]:
        assert not [s for s in detect(text) if s.kind == "phone"], text
    for text, number in [
        ("Tel. +49 30 1234567", "+49 30 1234567"),
        ("call 0049 30 1234567", "0049 30 1234567"),
        ("Fax (+30) 2198 845833", "(+30) 2198 845833"),
        ("Mob. 06-70/585 6785", "06-70/585 6785"),
        ("WhatsApp: 57 300 123 4505", "57 300 123 4505"),  # not a 12-digit card
    ]:
        assert [text[s.start : s.end] for s in detect(text) if s.kind == "phone"] == [number]
    # Long runs of digit groups and many phone numbers: the card search looks at 19
    # groups at most, the overlap check at two neighbours (both were worse than
    # quadratic: 2 KB of "1 " took 11 s).
    text = "1 " * 2000 + "\n" + "Tel 030 1234567\n" * 2000
    many = detect(text)
    assert sum(text[s.start : s.end] == "030 1234567" for s in many) == 2000


def test_a_phone_number_inside_an_address_is_the_address_and_the_reverse() -> None:
    from domain.memory.release import Span

    class Says:
        def __init__(self, *spans: Span) -> None:
            self.spans = spans

        def entities(self, text: str) -> tuple[Span, ...]:
            return self.spans

    # A Japanese postcode looks like a phone number; inside the tagger's address it is
    # the address.
    text = "Ship to 1-2-3 Ginza, Chuo-ku, Tokyo 104-0031 today"
    address = Span(kind="address", start=8, end=text.index(" today"))
    kinds = [(s.kind, text[s.start : s.end]) for s in detect(text, Says(address))]
    assert kinds == [("address", "1-2-3 Ginza, Chuo-ku, Tokyo 104-0031")]
    # The tagger calling part of a phone number an address does not unmake the phone.
    text = "Tel. +30 2198 845833 anytime"
    inside = Span(kind="address", start=9, end=20)
    kinds = [(s.kind, text[s.start : s.end]) for s in detect(text, Says(inside))]
    assert kinds == [("phone", "+30 2198 845833")]
