"""Convert hand-written batch files (inline [[P|..]] / [[A|..]] markup) to JSONL with gold spans."""

import glob
import json
import os
import re
import sys

HDR = re.compile(r"^### (\S+)\|(\S+)\|(\S+)\s*$")
MARK = re.compile(r"\[\[(P|A)\|(.*?)\]\]", re.S)
TYPES = {"P": "person", "A": "address"}


def parse(path):
    docs, cur = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        m = HDR.match(line)
        if m:
            if cur:
                docs.append(cur)
            cur = {"id": m.group(1), "lang": m.group(2), "genre": m.group(3), "raw": []}
        elif cur is not None:
            cur["raw"].append(line)
    if cur:
        docs.append(cur)
    out = []
    for d in docs:
        raw = "\n".join(d["raw"]).strip("\n")
        text, spans, pos = [], [], 0
        n = 0
        for m in MARK.finditer(raw):
            text.append(raw[pos : m.start()])
            n += len(raw[pos : m.start()])
            s = m.group(2)
            spans.append({"type": TYPES[m.group(1)], "start": n, "end": n + len(s)})
            text.append(s)
            n += len(s)
            pos = m.end()
        text.append(raw[pos:])
        t = "".join(text)
        assert (
            "[[" not in t
            and "]]" not in t
            and "|" not in "".join(t[s["start"] : s["end"]] for s in spans)
        ), (path, d["id"])
        out.append(
            {
                "id": d["id"],
                "lang": d["lang"],
                "genre": d["genre"],
                "text": t,
                "spans": spans,
                "_marked": [m.group(2) for m in MARK.finditer(raw)],
            }
        )
    return out


if __name__ == "__main__":
    files = sorted(
        glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "batches", "b*.txt"))
    )
    alldocs = []
    for f in files:
        alldocs += parse(f)
    ids = [d["id"] for d in alldocs]
    assert len(ids) == len(set(ids)), "duplicate ids"
    bad = 0
    for d in alldocs:
        for s, m in zip(d["spans"], d.pop("_marked")):
            if d["text"][s["start"] : s["end"]] != m or m != m.strip() or not m:
                print("BAD span", d["id"], repr(m))
                bad += 1
        L = len(d["text"])
        if not 200 <= L <= 1500:
            print("LENGTH", d["id"], L)
    print(len(alldocs), "docs;", bad, "bad spans")
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            for d in alldocs:
                fh.write(json.dumps(d, ensure_ascii=False) + "\n")
