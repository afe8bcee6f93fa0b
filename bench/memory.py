"""Memory: a gated top-10 similarity query over many records, and ingestion.

The query is :meth:`MemoryBank.query` as a reader calls it: embed the question, build
the reader under a read of the organization's configuration, mask the vectors the
reader may not see, rank, release through the rule, log the read, commit. The records
belong to 20 projects and the reader (a human) is staffed on half of them. The baseline
is the same top-10 without any of that: one brute-force numpy product over the same
matrix, ungated.

The records are written straight into the table with random unit vectors (filling
100,000 through ingestion would take minutes and measure ingestion, not search);
ingestion is measured apart, through ``memory.remember`` (screen, embed, check the
barrier rules under the organization's lock, store, chain entry, commit), against the
embedder alone on the same texts, and again without the name and address tagger. The
finder's own cost is timed on 2 KB documents of real business text, with the tagger and
with the rules alone.
"""

from __future__ import annotations

import statistics
import time
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import numpy as np
from sqlalchemy import insert

from adapters.memory.entity_tagger import local_tagger
from adapters.memory.tables import MemoryNodeRow
from adapters.store.store import Store
from adapters.store.tables import table_of
from bench.stack import bench_keys
from domain.memory.pii import detect
from domain.memory.ports import EmbedPurpose
from domain.organization.kinds import StaffRole
from evals import heldout
from usecases import memory, organization
from worker.ports import build_ports
from worker.settings import Settings

PROJECTS = [f"p{i:02d}" for i in range(20)]
QUESTIONS = [
    "What did we agree with the client about the delivery date?",
    "Which invoices are overdue this quarter?",
    "Summarise the risks in the engagement letter.",
    "Who approved the last payment to the vendor?",
]


@dataclass(frozen=True)
class MemoryFigures:
    """Query times (ms) over ``nodes`` records, the ungated baseline, and ingestion."""

    nodes: int
    p50_ms: float
    p95_ms: float
    baseline_p50_ms: float
    baseline_p95_ms: float
    ingest_per_s: float
    embed_per_s: float
    cold_ms: float
    """The first query of a process: it reads every vector."""
    after_write_ms: float
    """A query right after a write."""
    business_per_s: float
    """Ingestion of business documents (460 characters on average, with names)."""
    business_rules_per_s: float
    """The same, with the rules alone finding names and addresses (the tagger's cost)."""
    """The median query right after a record was kept: it reads only that record."""


def _fill(store: Store, org: str, nodes: int, dims: int, embedder: str) -> np.ndarray:
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((nodes, dims)).astype("<f4")
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    now = datetime.now(UTC)
    table = table_of(MemoryNodeRow)
    with store.db.transaction() as s:
        c = s.connection()
        for start in range(0, nodes, 5000):
            c.execute(
                insert(table),
                [
                    {
                        "org_id": org,
                        "ref": f"n{i:06d}",
                        "projects": [PROJECTS[i % len(PROJECTS)]],
                        "text": f"record {i} about delivery, invoices and engagement risks",
                        "spans": [],
                        "embedding": matrix[i].tobytes(),
                        "embedder": embedder,
                        "revision": i + 1,
                        "author_id": "bench",
                        "created_at": now,
                    }
                    for i in range(start, min(start + 5000, nodes))
                ],
            )
    return matrix


def _percentiles(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples) * 1e3, samples[int(len(samples) * 0.95)] * 1e3


def measure(
    url: str, nodes: int = 100_000, queries: int = 200, ingests: int = 200
) -> MemoryFigures:
    """Time queries over ``nodes`` records on ``url``, and ``ingests`` ingestions."""
    store = Store.open(url, bench_keys(), migrate_schema=False)
    try:
        ports = build_ports(store, None, Settings(database_url=url, embedder="local"))
        done = organization.onboard(ports, "Mem", f"m{uuid.uuid4().hex[:6]}@bench.example")
        org, founder = done.org.id, done.founder.id
        for slug in PROJECTS:
            organization.add_project(ports, org, founder, slug, slug)
        reader = organization.add_human(ports, org, founder, "r@bench.example", "Reader").id
        for slug in PROJECTS[::2]:
            organization.staff(
                ports, org, founder, organization.AssignStaff(reader, slug, StaffRole.MEMBER)
            )
        embedder = ports.embedder
        matrix = _fill(store, org, nodes, embedder.dimensions, embedder.name)

        def ask(i: int) -> None:
            store.memory.query(
                asker_principal_id=reader,
                org_id=org,
                text=QUESTIONS[i % len(QUESTIONS)],
                now=datetime.now(UTC),
                k=10,
            )

        start = time.perf_counter()
        ask(0)  # loads the index, as the first query of a process does
        cold = time.perf_counter() - start
        gated = []
        for i in range(queries):
            start = time.perf_counter()
            ask(i)
            gated.append(time.perf_counter() - start)
        vectors = embedder.embed(QUESTIONS, EmbedPurpose.QUERY)
        baseline = []
        for i in range(queries):
            q = np.frombuffer(vectors[i % len(vectors)], dtype="<f4")
            start = time.perf_counter()
            scores = matrix @ q
            best = np.argpartition(-scores, 9)[:10]
            best[np.argsort(-scores[best])]
            baseline.append(time.perf_counter() - start)

        texts = [
            f"Engagement note {i}: the client asked about delivery dates and invoice terms."
            for i in range(ingests)
        ]
        business = business_texts()[:ingests]
        start = time.perf_counter()
        embedder.embed(texts, EmbedPurpose.DOCUMENT)
        embed_s = time.perf_counter() - start
        start = time.perf_counter()
        for i, text in enumerate(texts):
            memory.remember(
                ports, org, founder, memory.Remember(f"ingest-{i}", (PROJECTS[0],), text)
            )
        ingest_s = time.perf_counter() - start
        rules_only = replace(ports, entity_finder=None)
        per_s = {}
        for name, finder_ports in (("tagger", ports), ("rules", rules_only)):
            start = time.perf_counter()
            for i, text in enumerate(business):
                memory.remember(
                    finder_ports, org, founder, memory.Remember(f"{name}-{i}", (PROJECTS[0],), text)
                )
            per_s[name] = len(business) / (time.perf_counter() - start)
        after_write = []
        for i in range(20):
            memory.remember(
                ports, org, founder, memory.Remember(f"late-{i}", (PROJECTS[0],), texts[i])
            )
            start = time.perf_counter()
            ask(i)
            after_write.append(time.perf_counter() - start)
    finally:
        store.close()
    p50, p95 = _percentiles(gated)
    b50, b95 = _percentiles(baseline)
    return MemoryFigures(
        nodes,
        p50,
        p95,
        b50,
        b95,
        ingests / ingest_s,
        ingests / embed_s,
        cold * 1e3,
        statistics.median(after_write) * 1e3,
        per_s["tagger"],
        per_s["rules"],
    )


@dataclass(frozen=True)
class FinderFigures:
    """Identifying detail in 2 KB documents: p95 ms with the tagger and with the rules
    alone, each the median of ``rounds`` rounds, with the rounds' spread."""

    documents: int
    rounds: int
    p95_ms: float
    p95_spread_ms: float
    rules_p95_ms: float
    rules_p95_spread_ms: float


def business_texts() -> list[str]:
    """The held-out business documents (written apart, and Faker-filled frames): real
    text with names and addresses, not the tagger's training frames."""
    return [
        str(d["text"])
        for name in ("pii_written.jsonl", "pii_faker.jsonl")
        for d in heldout.read(heldout.HELDOUT / name)
    ]


def two_kb_documents(count: int) -> list[str]:
    """``count`` distinct documents of about 2 KB, joined from :func:`business_texts`."""
    docs = business_texts()
    out, i = [], 0
    while len(out) < count:
        text = ""
        while len(text) < 2048:
            text += docs[i % len(docs)] + "\n\n"
            i += 1
        out.append(text[:2048])
    return out


def measure_finder(count: int = 200, rounds: int = 3) -> FinderFigures:
    """The finder's time per 2 KB document, rules and tagger against rules alone. Each
    round starts with the tagger's word cache empty, as a new worker's does."""
    tagger = local_tagger()
    texts = two_kb_documents(count)
    detect(texts[0], tagger)  # loads the model, as a worker's first document does
    with_tagger: list[float] = []
    rules: list[float] = []
    for _ in range(rounds):
        tagger.forget()
        for finder, out in ((tagger, with_tagger), (None, rules)):
            times = []
            for text in texts:
                start = time.perf_counter()
                detect(text, finder)
                times.append(time.perf_counter() - start)
            out.append(sorted(times)[int(len(times) * 0.95)] * 1e3)
    return FinderFigures(
        count,
        rounds,
        statistics.median(with_tagger),
        max(with_tagger) - min(with_tagger),
        statistics.median(rules),
        max(rules) - min(rules),
    )
