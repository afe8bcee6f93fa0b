"""The contract every memory backend and every embedder must keep.

Each check is a plain function over a fresh adapter (or embedder) that raises
``AssertionError`` when the contract is broken, so that the same checks run as tests
against every shipped backend (``test_memory_adapters.py``), against a class named by
import path (``make contracts ADAPTER=pkg.mod:Class``), and against a deliberately
broken adapter that must fail them (``test_broken_adapter.py``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import numpy as np

from domain.errors import Conflict
from domain.memory.adapter import Embedding, MemoryAdapter, MemoryLink
from domain.memory.ports import Embedder, EmbedPurpose
from domain.memory.release import Span, StoredNode

AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DIMS = 8
EMBEDDER = "contract-8"


def _org() -> str:
    return f"org-{uuid.uuid4().hex[:10]}"


def _vector(seed: int) -> bytes:
    v = np.random.default_rng(seed).standard_normal(DIMS).astype("<f4")
    return (v / np.linalg.norm(v)).astype("<f4").tobytes()


def _node(org: str, ref: str, projects: tuple[str, ...], text: str = "") -> StoredNode:
    return StoredNode(org_id=org, ref=ref, projects=projects, text=text or f"text of {ref}")


def _keep(
    adapter: MemoryAdapter,
    node: StoredNode,
    seed: int | None = None,
    embedder: str = EMBEDDER,
    minutes: int = 0,
) -> None:
    embedding = None if seed is None else Embedding(embedder=embedder, vector=_vector(seed))
    adapter.store(node, author_id="author", at=AT + timedelta(minutes=minutes), embedding=embedding)


# ---------------------------------------------------------------------------- semantic store
def stores_and_retrieves_nodes_as_given(adapter: MemoryAdapter) -> None:
    org = _org()
    spans = (Span(kind="email", start=5, end=16),)
    node = StoredNode(
        org_id=org,
        ref="a",
        projects=("east", "west"),
        text="mail ada@x.test now",
        spans=spans,
        kind="email",
        source="inbox of ada",
    )
    adapter.store(node, author_id="author", at=AT)
    _keep(adapter, _node(org, "b", ("east",)))
    (kept,) = adapter.retrieve(org, ["a"])
    assert kept.model_copy(update={"kept_at": None}) == node
    assert kept.kept_at in (None, AT), "kept_at is when it was stored (or unknown)"
    got = adapter.retrieve(org, ["b", "missing", "a"])
    assert [n.ref for n in got] == ["b", "a"], "retrieve keeps the order asked, drops unknowns"
    assert adapter.retrieve(org, []) == []


def refuses_a_second_node_with_a_kept_reference(adapter: MemoryAdapter) -> None:
    org = _org()
    _keep(adapter, _node(org, "a", ("east",), "first"))
    try:
        _keep(adapter, _node(org, "a", ("west",), "second"))
    except Conflict:
        pass
    else:
        raise AssertionError("a second node with the same reference was accepted")
    assert [n.text for n in adapter.retrieve(org, ["a"])] == ["first"]


def lists_every_node_by_reference(adapter: MemoryAdapter) -> None:
    org = _org()
    for ref in ("c", "a", "b"):
        _keep(adapter, _node(org, ref, ("east",)))
    assert [n.ref for n in adapter.nodes(org)] == ["a", "b", "c"]


def answers_for_one_organization_only(adapter: MemoryAdapter) -> None:
    mine, theirs = _org(), _org()
    _keep(adapter, _node(theirs, "same", ("east",), "theirs"), seed=1)
    _keep(adapter, _node(mine, "same", ("east",), "mine"), seed=2)
    _keep(adapter, _node(theirs, "only-theirs", ("east",)), seed=3)
    link = MemoryLink(id=str(uuid.uuid4()), src="same", dst="only-theirs", kind="relates")
    adapter.link(theirs, link, author_id="author", at=AT)
    adapter.publish(theirs, "close", ("east",), ("step",), author_id="author", at=AT)
    assert [n.text for n in adapter.retrieve(mine, ["same", "only-theirs"])] == ["mine"]
    assert [n.ref for n in adapter.nodes(mine)] == ["same"]
    assert adapter.links(mine) == [] and adapter.links(mine, "same") == []
    assert adapter.procedures(mine) == [] and adapter.procedures(mine, "close") == []
    found = adapter.search(mine, _vector(3), embedder=EMBEDDER, k=5, allowed=frozenset({"east"}))
    assert [ref for ref, _ in found.hits] == ["same"]
    assert found.withheld == 0, "another organization's nodes are not counted"


# ---------------------------------------------------------------------------- similarity
def searches_by_cosine_within_the_allowed_projects(adapter: MemoryAdapter) -> None:
    org = _org()
    for i in range(12):
        projects = ("east",) if i % 3 else ("west",)
        _keep(adapter, _node(org, f"n{i:02d}", projects), seed=100 + i)
    _keep(adapter, _node(org, "both", ("east", "west")), seed=200)
    q = _vector(105)
    found = adapter.search(org, q, embedder=EMBEDDER, k=4, allowed=frozenset({"east"}))
    refs = [ref for ref, _ in found.hits]
    assert len(refs) == 4
    assert all(int(ref[1:]) % 3 for ref in refs), f"a node outside the reader's projects: {refs}"
    assert refs[0] == "n05", "the node with the query's own vector comes first"
    scores = [score for _, score in found.hits]
    assert scores == sorted(scores, reverse=True)
    qv = np.frombuffer(q, dtype="<f4")
    for ref, score in found.hits:
        seed = 100 + int(ref[1:])
        assert abs(score - float(np.frombuffer(_vector(seed), dtype="<f4") @ qv)) < 1e-4
    east = [100 + i for i in range(12) if i % 3]
    best = sorted((float(np.frombuffer(_vector(s), dtype="<f4") @ qv), s) for s in east)[-4:]
    assert sorted(int(r[1:]) + 100 for r in refs) == sorted(s for _, s in best)
    assert found.withheld == 5, "every node the reader may not see, whatever the query"
    other = adapter.search(org, _vector(999), embedder=EMBEDDER, k=1, allowed=frozenset({"east"}))
    assert other.withheld == 5, "the count does not move with the query"


def searches_nothing_for_a_reader_of_no_project(adapter: MemoryAdapter) -> None:
    org = _org()
    _keep(adapter, _node(org, "a", ("east",)), seed=1)
    found = adapter.search(org, _vector(1), embedder=EMBEDDER, k=3, allowed=frozenset())
    assert found.hits == () and found.withheld == 1


def honours_a_minimum_score(adapter: MemoryAdapter) -> None:
    org = _org()
    for i in range(6):
        _keep(adapter, _node(org, f"e{i}", ("east",)), seed=300 + i)
        _keep(adapter, _node(org, f"w{i}", ("west",)), seed=400 + i)
    q = _vector(302)
    qv = np.frombuffer(q, dtype="<f4")

    def score(seed: int) -> float:
        return float(np.frombuffer(_vector(seed), dtype="<f4") @ qv)

    floor = 0.2
    found = adapter.search(
        org, q, embedder=EMBEDDER, k=6, allowed=frozenset({"east"}), min_score=floor
    )
    expected = sorted((s for s in range(300, 306) if score(s) >= floor), key=score, reverse=True)
    assert [ref for ref, _ in found.hits] == [f"e{s - 300}" for s in expected]
    assert found.withheld == 6, "the floor filters hits, not the count"


def searches_only_vectors_of_the_same_embedder(adapter: MemoryAdapter) -> None:
    org = _org()
    _keep(adapter, _node(org, "mine", ("east",)), seed=1)
    _keep(adapter, _node(org, "other-model", ("east",)), seed=1, embedder="another-model-8")
    _keep(adapter, _node(org, "unembedded", ("east",)))
    found = adapter.search(org, _vector(1), embedder=EMBEDDER, k=5, allowed=frozenset({"east"}))
    assert [ref for ref, _ in found.hits] == ["mine"]


def finds_a_node_kept_after_an_earlier_search(adapter: MemoryAdapter) -> None:
    org = _org()
    allowed = frozenset({"east"})
    _keep(adapter, _node(org, "old", ("east",)), seed=1)
    assert len(adapter.search(org, _vector(2), embedder=EMBEDDER, k=5, allowed=allowed).hits) == 1
    _keep(adapter, _node(org, "new", ("east",)), seed=2)
    found = adapter.search(org, _vector(2), embedder=EMBEDDER, k=5, allowed=allowed)
    assert [ref for ref, _ in found.hits] == ["new", "old"]


def reembeds_what_another_model_embedded(adapter: MemoryAdapter) -> None:
    org = _org()
    _keep(adapter, _node(org, "a", ("east",), "alpha"), seed=1, embedder="old-model-8")
    _keep(adapter, _node(org, "b", ("east",), "beta"))
    _keep(adapter, _node(org, "c", ("east",), "gamma"), seed=3)
    allowed = frozenset({"east"})
    adapter.search(org, _vector(3), embedder=EMBEDDER, k=5, allowed=allowed)  # an index exists
    first = adapter.unembedded(org, EMBEDDER, 1)
    assert [n.ref for n in first] == ["a"], "oldest first, at most the limit"
    stale = adapter.unembedded(org, EMBEDDER, 10)
    assert [(n.ref, n.text) for n in stale] == [("a", "alpha"), ("b", "beta")]
    for node in stale:
        vector = _vector(50 + len(node.text))
        adapter.embed_again(org, node.ref, Embedding(embedder=EMBEDDER, vector=vector))
    assert adapter.unembedded(org, EMBEDDER, 10) == [], "nothing is left to embed"
    assert [n.text for n in adapter.retrieve(org, ["a"])] == ["alpha"], "only the vector moved"
    found = adapter.search(org, _vector(55), embedder=EMBEDDER, k=5, allowed=allowed)
    assert sorted(ref for ref, _ in found.hits) == ["a", "b", "c"]
    assert found.hits[0][0] == "a", "the new vector of 'alpha' (seed 55) is the query's own"
    gone = adapter.search(org, _vector(1), embedder="old-model-8", k=5, allowed=allowed)
    assert gone.hits == (), "a node embedded again is no longer under its old model"


# ---------------------------------------------------------------------------- links
def keeps_links_both_ways_oldest_first(adapter: MemoryAdapter) -> None:
    org = _org()
    for ref in ("a", "b", "c"):
        _keep(adapter, _node(org, ref, ("east",)))
    first = MemoryLink(id=str(uuid.uuid4()), src="a", dst="b", kind="relates")
    second = MemoryLink(
        id=str(uuid.uuid4()), src="c", dst="a", kind="derived_from", span_start=2, span_end=6
    )
    adapter.link(org, first, author_id="author", at=AT)
    adapter.link(org, second, author_id="author", at=AT + timedelta(seconds=1))
    assert adapter.links(org, "a") == [first, second]
    assert adapter.links(org, "b") == [first]
    assert adapter.links(org, "c") == [second]
    assert adapter.links(org) == [first, second]
    assert adapter.links(org, "nothing") == []


# ---------------------------------------------------------------------------- procedures
def versions_procedures_newest_first(adapter: MemoryAdapter) -> None:
    org = _org()
    one = adapter.publish(org, "close", ("east",), ("draft", "send"), author_id="a", at=AT)
    two = adapter.publish(org, "close", ("east",), ("draft", "check", "send"), author_id="a", at=AT)
    other = adapter.publish(org, "onboard", ("west",), ("welcome",), author_id="a", at=AT)
    assert (one.version, two.version, other.version) == (1, 2, 1)
    assert adapter.procedures(org, "close") == [two, one]
    assert two.steps == ("draft", "check", "send") and two.projects == ("east",)
    assert sorted((p.name, p.version) for p in adapter.procedures(org)) == [
        ("close", 1),
        ("close", 2),
        ("onboard", 1),
    ]
    assert adapter.procedures(org, "unknown") == []


ADAPTER_CHECKS: tuple[Callable[[MemoryAdapter], None], ...] = (
    stores_and_retrieves_nodes_as_given,
    refuses_a_second_node_with_a_kept_reference,
    lists_every_node_by_reference,
    answers_for_one_organization_only,
    searches_by_cosine_within_the_allowed_projects,
    searches_nothing_for_a_reader_of_no_project,
    honours_a_minimum_score,
    searches_only_vectors_of_the_same_embedder,
    finds_a_node_kept_after_an_earlier_search,
    reembeds_what_another_model_embedded,
    keeps_links_both_ways_oldest_first,
    versions_procedures_newest_first,
)


# ---------------------------------------------------------------------------- embedders
def embeds_unit_vectors_of_the_stated_size(embedder: Embedder) -> None:
    assert embedder.name and embedder.dimensions > 0
    texts = ["The invoice is overdue.", "Quarterly board meeting notes", "x"]
    for purpose in EmbedPurpose:
        rows = embedder.embed(texts, purpose)
        assert len(rows) == len(texts)
        for row in rows:
            assert isinstance(row, bytes) and len(row) == embedder.dimensions * 4
            norm = float(np.linalg.norm(np.frombuffer(row, dtype="<f4")))
            assert abs(norm - 1.0) < 1e-3, f"not L2-normalised: {norm}"
    assert embedder.embed([], EmbedPurpose.DOCUMENT) == []


def embeds_the_same_text_the_same_way(embedder: Embedder) -> None:
    texts = ["Pay the Northwind invoice", "Summarise the Birch diligence"]
    batch = embedder.embed(texts, EmbedPurpose.DOCUMENT)
    again = embedder.embed(texts, EmbedPurpose.DOCUMENT)
    one = [embedder.embed([t], EmbedPurpose.DOCUMENT)[0] for t in texts]
    for a, b, c in zip(batch, again, one, strict=True):
        va, vb, vc = (np.frombuffer(x, dtype="<f4") for x in (a, b, c))
        assert float(va @ vb) > 0.9999 and float(va @ vc) > 0.999, "batching changed a vector"


EMBEDDER_CHECKS: tuple[Callable[[Embedder], None], ...] = (
    embeds_unit_vectors_of_the_stated_size,
    embeds_the_same_text_the_same_way,
)
