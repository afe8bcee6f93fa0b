"""Person names and street addresses, found by a trained token tagger.

Names and addresses have no checksum and no fixed shape, and no list holds the firm's
clients. So each token of a text is classified (not part of one, part of a person's
name, part of a street address) by a softmax regression over hashed features:

- the token itself: its lower-cased form, prefixes, suffixes and character 3- and
  4-grams (``-ová``, ``-escu``, ``-straße``, ``utca`` carry across languages), its
  shape (``Xx``, ``X.``, ``dd``, ``XXdd``), its script, and what a lexicon says of it
  (:mod:`evals.lexicon`): how common it is as a first or last name in 105 countries,
  as a word in thirty-odd languages, and whether it names a town; hints, not verdicts
  ("Will" and "Street" are names too, "Paris" a town and a name);
- its neighbours, two on each side: their forms, shapes and name codes, and whether
  the token starts a sentence or a line;
- the document: whether the capitalised word also appears in lower case there (then
  it is more likely an ordinary word).

Adjacent tokens of a name or an address make one span, of the class the tokens lean to
together; an address without a number, or a name of initials or acronyms alone, is not
one (and :func:`domain.memory.pii.detect` drops a name right before a company's legal
form: "Tanaka Precision Co."). The weights
are trained in the repository (``make train-entities``: :mod:`evals.entity_corpus`
writes the training documents, :mod:`evals.train_entities` fits them) and read from the
committed file beside this module; nothing is downloaded. The features are built with
numpy over a whole text at once; a token's own features are computed once per distinct
token and kept.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from domain.memory.release import Span

MODEL_PATH = Path(__file__).with_name("entity_model.npz")
"""The committed weights (written by ``make train-entities``)."""
LEXICON_PATH = Path(__file__).with_name("entity_lexicon.npz")
"""Hashes of names, words and towns with what is known of each (``make lexicon``)."""

BITS = 19
"""Features are hashed into 2**BITS buckets."""
MIN_PROBABILITY = 0.7
"""A token is taken for part of a name or an address only when the tagger gives that at
least this probability. Chosen on the held-out documents whose errors were read during
development (``evals/data/heldout/README.md``): at 0.5 a name was found 94% of the time
with 83% of the names found right, at 0.7 91% and 90%, at 0.9 82% and 93%. Missing a
name leaves it unmasked; a word taken for a name is masked for nothing: 0.7 keeps both
near 0.9."""
CLASSES = ("other", "person", "address")
"""What a token can be part of; a span's ``kind`` is its class's name."""

_TOKEN = re.compile(r"\w+(?:['’]\w+)*|\n|[^\w\s]")
"""A word (with inner apostrophes), a line break, or one other visible character: a
hyphen, a dot or a slash is a token of its own, so ``Müller-Lüdenscheidt``, ``J.`` and
``12/4`` keep their parts."""
_LONGEST = 64
"""A token's features are built from its first this many characters."""
_START, _END = 1 << 40, 1 << 41
_SENTENCE_END = frozenset({".", "!", "?", "\n", ":", ";", "•", "|", '"', "“", "("})
_MASK = np.uint64((1 << BITS) - 1)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def name_key(word: str) -> int:
    """The lexicon's key for ``word`` (as :mod:`evals.lexicon` wrote it)."""
    return zlib.crc32(
        unicodedata.normalize("NFC", word).casefold().encode("utf-8", "surrogatepass")
    )


def _hash(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) & ((1 << BITS) - 1)


def _shape(word: str) -> str:
    out: list[str] = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c or c not in "Xxd":
            out.append(c)
    return "".join(out)[:6]


_FOLD = str.maketrans("đĐłŁøØßæÆœŒıħĦ", "dDlLoOsaAoOihH")


def _unaccented(word: str) -> str:
    """``word`` without its diacritics ("Trần" → "Tran", "Łukasz" → "Lukasz")."""
    decomposed = unicodedata.normalize("NFKD", word.translate(_FOLD))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _script(word: str) -> str:
    ch = next((c for c in word if c.isalpha()), "")
    if not ch:
        return "none"
    if ch.isascii():
        return "ascii"
    name = unicodedata.name(ch, "")
    return name.split(" ")[0].lower()


@dataclass(frozen=True)
class _Word:
    """What a distinct token contributes: its own hashed features and the three
    numbers its neighbours see of it."""

    own: npt.NDArray[np.int64]
    form: int
    shape: int
    lexicon: int
    title: bool


class EntityTagger:
    """The trained tagger: ``entities(text)`` are the person and address spans."""

    name = "entity-tagger-softmax"

    def __init__(
        self,
        weights: npt.NDArray[np.float32],
        bias: npt.NDArray[np.float32],
        lexicon_keys: npt.NDArray[np.uint32],
        lexicon_codes: npt.NDArray[np.uint16],
    ) -> None:
        if weights.shape != (1 << BITS, len(CLASSES)):
            raise ValueError(
                f"entity weights have shape {weights.shape}, not ({1 << BITS}, {len(CLASSES)})"
            )
        self.weights = weights
        self.bias = bias
        self._keys = lexicon_keys
        self._codes = lexicon_codes
        self._word = lru_cache(maxsize=50_000)(self._word_uncached)

    def forget(self) -> None:
        """Drop the per-word features kept so far (as a new process starts)."""
        self._word.cache_clear()

    def lexicon_code(self, word: str) -> int:
        """What the lexicon says of ``word``: how common as a first name (bits 0-1) and
        a last name (2-3), as a word (4-6), and the largest town it names (7-8)."""
        key = np.uint32(name_key(word))
        at = int(np.searchsorted(self._keys, key))
        return int(self._codes[at]) if at < len(self._keys) and self._keys[at] == key else 0

    def _word_uncached(self, word: str) -> _Word:
        word = word[:_LONGEST]
        low = word.lower()
        code = self.lexicon_code(word) if word[:1].isalpha() else 0
        first, last, common, town = code & 3, code >> 2 & 3, code >> 4 & 7, code >> 7 & 3
        # Lists often hold a name without its accents ("Tran" for "Trần").
        plain = _unaccented(word)
        folded = self.lexicon_code(plain) if plain != word and word[:1].isalpha() else 0
        shape = _shape(word)
        bounded = f"<{low}>"
        feats = [
            f"w={low}",
            f"sh={shape}",
            f"sc={_script(word)}",
            f"len={min(len(word), 12)}",
            f"p2={low[:2]}",
            f"p3={low[:3]}",
            f"s2={low[-2:]}",
            f"s3={low[-3:]}",
            f"s4={low[-4:]}",
            f"nf={first}",
            f"nl={last}",
            f"cw={common}",
            f"town={town}",
            f"names={first}|{last}|{shape[:2]}",
            f"namesword={first}|{last}|{common}",
            f"wordshape={common}|{shape[:2]}",
            f"townword={town}|{common}|{shape[:2]}",
            f"plain={folded & 3}|{folded >> 2 & 3}|{folded >> 4 & 7}",
        ]
        feats += [f"c3={bounded[i : i + 3]}" for i in range(len(bounded) - 2)][:16]
        feats += [f"c4={bounded[i : i + 4]}" for i in range(len(bounded) - 3)][:12]
        own = np.array(sorted({_hash(f) for f in feats}), dtype=np.int64)
        title = word[:1].isupper() and not word.isupper()
        return _Word(
            own,
            zlib.crc32(low.encode("utf-8", "surrogatepass")),
            zlib.crc32(shape.encode("utf-8", "surrogatepass")),
            code,
            title,
        )

    def features(
        self, text: str
    ) -> tuple[list[tuple[int, int]], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The tokens of ``text`` (start, end) and their hashed features, as a flat
        index array with each token's offset into it (CSR)."""
        matches = list(_TOKEN.finditer(text))
        tokens = [(m.start(), m.end()) for m in matches]
        n = len(tokens)
        if n == 0:
            return tokens, np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)
        words = [self._word(m.group()) for m in matches]
        lower_seen = {m.group() for m in matches if m.group().islower()}
        pad = 2
        form = np.zeros(n + 2 * pad, dtype=np.uint64)
        shape = np.zeros(n + 2 * pad, dtype=np.uint64)
        names = np.zeros(n + 2 * pad, dtype=np.uint64)
        # The text's edges: values no word's form, shape or lexicon code takes.
        form[:pad] = shape[:pad] = names[:pad] = _START
        form[-pad:] = shape[-pad:] = names[-pad:] = _END
        form[pad:-pad] = [w.form for w in words]
        shape[pad:-pad] = [w.shape for w in words]
        names[pad:-pad] = [w.lexicon for w in words]
        starts = np.array(
            [i == 0 or matches[i - 1].group() in _SENTENCE_END for i in range(n)], dtype=np.uint64
        )
        seen_lower = np.array(
            [
                w.title and m.group().lower() in lower_seen
                for w, m in zip(words, matches, strict=True)
            ],
            dtype=np.uint64,
        )

        def at(arr: npt.NDArray[np.uint64], offset: int) -> npt.NDArray[np.uint64]:
            return arr[pad + offset : pad + offset + n]

        own_shape = at(shape, 0)
        context = [
            (at(form, -1), 1),
            (at(form, -2), 2),
            (at(form, 1), 3),
            (at(form, 2), 4),
            (at(shape, -1), 5),
            (at(shape, 1), 6),
            (at(names, -1) * np.uint64(1024) + at(names, 1), 7),
            (at(names, -2) * np.uint64(1024) + at(names, 2), 8),
            (at(names, -1) * np.uint64(1024) + at(names, 0), 17),
            (at(names, 0) * np.uint64(1024) + at(names, 1), 18),
            (at(shape, -1) * np.uint64(7) + own_shape, 9),
            (own_shape * np.uint64(7) + at(shape, 1), 10),
            (at(form, -2) * np.uint64(31) + at(form, -1), 11),
            (at(form, -1) * np.uint64(31) + own_shape, 12),
            (own_shape * np.uint64(31) + at(form, 1), 13),
            (
                starts * np.uint64(8) + at(names, 0) * np.uint64(64) + own_shape * np.uint64(65536),
                14,
            ),
            (seen_lower * np.uint64(5) + own_shape, 15),
            (at(shape, -2) * np.uint64(7) + at(shape, -1) + own_shape * np.uint64(3), 16),
        ]
        mixed = [
            ((arr + np.uint64(salt)) * _MIX >> np.uint64(64 - BITS)) & _MASK
            for arr, salt in context
        ]
        ctx = np.stack(mixed, axis=1).astype(np.int64)  # (n, len(context))
        own_lengths = np.array([len(w.own) for w in words], dtype=np.int64)
        per_token = own_lengths + ctx.shape[1]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(per_token, out=indptr[1:])
        index = np.empty(int(indptr[-1]), dtype=np.int64)
        own_flat = np.concatenate([w.own for w in words])
        own_pos = np.repeat(indptr[:-1], own_lengths) + (
            np.arange(len(own_flat)) - np.repeat(np.cumsum(own_lengths) - own_lengths, own_lengths)
        )
        index[own_pos] = own_flat
        ctx_pos = (indptr[:-1] + own_lengths)[:, None] + np.arange(ctx.shape[1])[None, :]
        index[ctx_pos.ravel()] = ctx.ravel()
        return tokens, indptr, index

    def token_scores(
        self, indptr: npt.NDArray[np.int64], index: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        """Each token's logits, one column per class."""
        if len(indptr) < 2:
            return np.zeros((0, len(CLASSES)), dtype=np.float32)
        summed = np.add.reduceat(self.weights[index], indptr[:-1], axis=0)
        return summed + self.bias

    def entities(self, text: str) -> tuple[Span, ...]:
        """The person names and street addresses in ``text``, in text order."""
        tokens, indptr, index = self.features(text)
        if not tokens:
            return ()
        probs = softmax(self.token_scores(indptr, index))
        probs[probs[:, 1:].max(axis=1) < MIN_PROBABILITY, 0] = 1.0
        return spans_of(text, tokens, probs)


def softmax(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each row's class probabilities."""
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: npt.NDArray[np.float32] = shifted / shifted.sum(axis=1, keepdims=True)
    return out


_JOINERS = frozenset("-'’./")
"""A hyphen, an apostrophe, a dot or a slash between two tokens of a name or an address
with no space around it is part of it ("Jean-Baptiste", "12/4")."""


def _abbreviated(word: str, cls: int) -> bool:
    """Whether a dot right after ``word`` is its own: an initial's ("J."), or a short
    street word's ("St.", "Str.", "ul.") in an address. Never a number's."""
    if not word.isalpha():
        return False
    return len(word) == 1 or (cls == 2 and len(word) <= 4)


_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")
"""The scripts the tagger is trained on; a span in another is not trusted."""


def _in_trained_script(words: Sequence[str]) -> bool:
    return all(
        unicodedata.name(ch, "").startswith(_SCRIPTS) for w in words for ch in w if ch.isalpha()
    )


def _lines(words: Sequence[str], p: int, q: int, cls: int) -> list[tuple[int, int, int]]:
    """The tokens ``p`` to ``q`` cut at each line break."""
    out, start = [], p
    for k in range(p, q + 1):
        if words[k] == "\n":
            if start < k:
                out.append((start, k - 1, cls))
            start = k + 1
    if start <= q:
        out.append((start, q, cls))
    return out


def _valid(kind: str, words: Sequence[str]) -> bool:
    """An address has a number and two words at least; a name has a word of two letters
    or more that is not an acronym ("NI", "IBAN"); either is written in a script the
    tagger was trained on (Latin, Greek, Cyrillic)."""
    if not _in_trained_script(words):
        return False
    if kind == "address":
        return len(words) >= 2 and any(any(ch.isdigit() for ch in w) for w in words)
    return any(
        sum(ch.isalpha() for ch in w) >= 2 and not (w.isupper() and len(w) <= 4) for w in words
    )


def spans_of(
    text: str, tokens: Sequence[tuple[int, int]], probs: npt.NDArray[np.float32]
) -> tuple[Span, ...]:
    """Runs of name or address tokens as spans.

    A token is of the class it is likeliest to be. A run of such tokens (joined also by
    a hyphen, an apostrophe, a dot or a slash with no space around it) is one span;
    when its tokens disagree, it takes the class they lean to together, unless each
    class holds two words of it (a name then an address on one line). A name stops at
    a line's end. Punctuation at a span's edges is left out, and an initial's or a
    street word's dot kept."""
    labels = probs.argmax(axis=1)
    words = [text[a:b] for a, b in tokens]
    alnum = [any(ch.isalnum() for ch in w) for w in words]
    n = len(tokens)
    runs: list[tuple[int, int]] = []
    i = 0
    while i < n:
        if labels[i] == 0:
            i += 1
            continue
        j = i
        while j + 1 < n:
            if labels[j + 1] != 0:
                j += 1
            elif (
                j + 2 < n
                and labels[j + 2] != 0
                and words[j + 1] in _JOINERS
                and tokens[j][1] == tokens[j + 1][0]
                and tokens[j + 1][1] == tokens[j + 2][0]
            ):
                j += 2
            else:
                break
        runs.append((i, j))
        i = j + 1
    out: list[Span] = []
    for a, b in runs:
        inside = [k for k in range(a, b + 1) if alnum[k]]
        if not inside:
            continue
        counts = {c: sum(1 for k in inside if labels[k] == c) for c in (1, 2)}
        if min(counts.values()) >= 2:
            # A name and an address side by side: each keeps its own tokens.
            pieces = []
            start = a
            for k in range(a + 1, b + 2):
                if k > b or (labels[k] != 0 and labels[k] != labels[start]):
                    pieces.append((start, k - 1, int(labels[start])))
                    start = k
        else:
            totals = probs[inside, 1:].sum(axis=0)
            pieces = [(a, b, 1 + int(totals.argmax()))]
        # An address may run over several lines; a name stops at the line's end.
        pieces = [
            part
            for p, q, cls in pieces
            for part in (_lines(words, p, q, cls) if cls == 1 else [(p, q, cls)])
        ]
        for p, q, cls in pieces:
            while p <= q and not alnum[p]:
                p += 1
            while q >= p and not alnum[q]:
                q -= 1
            if p > q or not _valid(CLASSES[cls], [words[k] for k in range(p, q + 1) if alnum[k]]):
                continue
            end = tokens[q][1]
            if (
                q + 1 < n
                and words[q + 1] == "."
                and tokens[q + 1][0] == end
                and _abbreviated(words[q], cls)
            ):
                end = tokens[q + 1][1]
            out.append(Span(kind=CLASSES[cls], start=tokens[p][0], end=end))
    return tuple(out)


def load(path: Path = MODEL_PATH, lexicon: Path = LEXICON_PATH) -> EntityTagger:
    """The tagger from a weights file written by :mod:`evals.train_entities`."""
    with np.load(path) as data:
        weights = data["weights"].astype(np.float32)
        bias = data["bias"].astype(np.float32)
    with np.load(lexicon) as names:
        keys, codes = names["keys"], names["codes"]
    return EntityTagger(weights, bias, keys, codes)


@cache
def local_tagger() -> EntityTagger:
    """The process's tagger, from the committed files (loaded on first use)."""
    return load()
