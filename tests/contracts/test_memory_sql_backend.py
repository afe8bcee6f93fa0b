"""What the SQL backend adds to the contract: it joins a caller's transaction, and its
shared similarity index never takes in a row that was rolled back."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from adapters.memory.sql import SqlMemoryAdapter
from adapters.store.db import make_engine
from domain.memory.adapter import Embedding
from tests.contracts.memory_contract import AT, EMBEDDER, _node, _vector
from tests.servers import fresh_database_url

EAST = frozenset({"east"})


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(
    request: pytest.FixtureRequest, tmp_path: Path, pg_template: str | None
) -> Iterator[Engine]:
    for url in fresh_database_url(request.param, tmp_path, pg_template):
        e = make_engine(url)
        yield e
        e.dispose()


def _embedded(seed: int) -> Embedding:
    return Embedding(embedder=EMBEDDER, vector=_vector(seed))


def test_a_rolled_back_write_never_enters_the_shared_index(engine: Engine) -> None:
    adapter = SqlMemoryAdapter(engine)
    adapter.store(_node("o", "kept", ("east",)), author_id="a", at=AT, embedding=_embedded(1))
    assert len(adapter.search("o", _vector(2), embedder=EMBEDDER, k=5, allowed=EAST).hits) == 1

    class Undo(Exception):
        pass

    with pytest.raises(Undo), engine.connect() as c, c.begin():
        adapter.joined(c).store(
            _node("o", "ghost", ("east",)), author_id="a", at=AT, embedding=_embedded(2)
        )
        # another joined copy on the same connection: it too must not share what it sees
        found = adapter.joined(c).search("o", _vector(2), embedder=EMBEDDER, k=5, allowed=EAST)
        assert [ref for ref, _ in found.hits] == ["ghost", "kept"]  # its own write, seen
        raise Undo
    after = adapter.search("o", _vector(2), embedder=EMBEDDER, k=5, allowed=EAST)
    assert [ref for ref, _ in after.hits] == ["kept"], "a rolled-back node is in the index"
    # the next node takes the revision the ghost had: it must be found all the same
    adapter.store(_node("o", "real", ("east",)), author_id="a", at=AT, embedding=_embedded(3))
    again = adapter.search("o", _vector(3), embedder=EMBEDDER, k=5, allowed=EAST)
    assert [ref for ref, _ in again.hits] == ["real", "kept"]


def test_a_write_commits_or_rolls_back_with_the_callers_transaction(engine: Engine) -> None:
    adapter = SqlMemoryAdapter(engine)
    with pytest.raises(RuntimeError), engine.connect() as c, c.begin():
        adapter.joined(c).store(_node("o", "lost", ("east",)), author_id="a", at=AT)
        raise RuntimeError
    assert adapter.retrieve("o", ["lost"]) == []
    with engine.connect() as c, c.begin():
        adapter.joined(c).store(_node("o", "kept", ("east",)), author_id="a", at=AT)
    assert [n.ref for n in adapter.retrieve("o", ["kept"])] == ["kept"]
    with pytest.raises(TypeError, match="joins a SQLAlchemy connection"):
        adapter.joined("not a connection")


def test_searches_racing_writes_see_only_whole_nodes_of_their_projects(engine: Engine) -> None:
    """Readers in threads search while a writer keeps nodes on both sides: no error, no
    hit outside the reader's projects, and at the end every node is found."""
    adapter = SqlMemoryAdapter(engine)
    problems: list[str] = []
    done = threading.Event()

    def write() -> None:
        try:
            for i in range(60):
                side = ("east",) if i % 2 else ("west",)
                adapter.store(
                    _node("o", f"n{i:02d}", side), author_id="a", at=AT, embedding=_embedded(i)
                )
        finally:
            done.set()

    def read() -> None:
        while not done.is_set():
            try:
                found = adapter.search("o", _vector(7), embedder=EMBEDDER, k=10, allowed=EAST)
                bad = [ref for ref, _ in found.hits if int(ref[1:]) % 2 == 0]
                if bad:
                    problems.append(f"west hits {bad}")
            except Exception as exc:  # noqa: BLE001 - the test reports it
                problems.append(repr(exc))

    threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert problems == []
    found = adapter.search("o", _vector(7), embedder=EMBEDDER, k=60, allowed=EAST)
    assert len(found.hits) == 30 and found.hits[0][0] == "n07"


def test_concurrent_writers_without_a_lock_all_keep_their_nodes(engine: Engine) -> None:
    """Unjoined writers of one organization race for its next revision: each keeps its
    node (a lost revision is read again), and the index finds them all."""
    adapter = SqlMemoryAdapter(engine)
    failures: list[str] = []

    def keep(worker: int) -> None:
        for i in range(6):
            ref = f"w{worker}-{i}"
            try:
                adapter.store(
                    _node("o", ref, ("east",)), author_id="a", at=AT, embedding=_embedded(i)
                )
            except Exception as exc:  # noqa: BLE001 - the test reports it
                failures.append(f"{ref}: {exc!r}")

    threads = [threading.Thread(target=keep, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert failures == []
    assert len(adapter.nodes("o")) == 36
    found = adapter.search("o", _vector(0), embedder=EMBEDDER, k=50, allowed=EAST)
    assert len(found.hits) == 36
