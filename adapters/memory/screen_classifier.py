"""The ingestion screen's second layer: a logistic regression over hashed n-grams.

It is trained in the repository (``make train-screen``: :mod:`evals.corpus` writes
the corpus, :mod:`evals.train` fits the weights) and reads only the committed
weights file next to this module; nothing is downloaded.

A document is scored sentence by sentence, the way an injected directive hides in it:
one sentence (or a sentence and its neighbour) that tells the reader to do something
off-task is enough, however ordinary the rest. Each piece is normalised as the rules
layer reads text (invisible characters out, look-alike letters mapped), lower-cased,
with e-mail addresses, links, account numbers and digits replaced by placeholders (the
classifier should learn "send … to <an address>", not one address), then turned into
hashed character 2–5-grams and word 1–2-grams. The document's score is its most
suspicious piece's probability; it is refused above the threshold chosen on the
corpus's validation split.
"""

from __future__ import annotations

import re
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from domain.memory.screen import normalised

MODEL_PATH = Path(__file__).with_name("screen_model.npz")
"""The committed weights (written by ``make train-screen``)."""

BITS = 18
"""Features are hashed into 2**BITS buckets."""

_MASKS = (
    (re.compile(r"\S+@\S+\.\w+"), " zemail "),
    (
        re.compile(
            r"(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|net|org|io|de|fr|es|it|nl|eu)"
            r"(?:/\S*)?"
        ),
        " zlink ",
    ),
    (re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"), " zaccount "),
    (re.compile(r"\d"), "0"),
)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))*(?:[.!?]+|\n|$)")
"""A sentence ends at a full stop (or ! ?) followed by a space, or at a line's end; the
dots of an address or a number do not end it."""
_WORD = re.compile(r"\w+")
_LONGEST = 400
"""Pieces longer than this many characters are cut (a paragraph without full stops)."""


def prepared(text: str) -> str:
    """``text`` as the classifier reads it (see the module's docstring)."""
    out = normalised(text)
    for pattern, placeholder in _MASKS:
        out = pattern.sub(placeholder, out)
    return " ".join(out.lower().split())


def pieces(text: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of what is scored: each sentence, and each sentence
    joined with the next (a directive split over two sentences)."""
    sentences: list[tuple[int, int]] = []
    for m in _SENTENCE.finditer(text):
        start, end = m.start(), m.end()
        while start < end and text[start].isspace():
            start += 1
        while start < end and text[end - 1].isspace():
            end -= 1
        while end - start > _LONGEST:
            sentences.append((start, start + _LONGEST))
            start += _LONGEST
        if end > start and _WORD.search(text, start, end):
            sentences.append((start, end))
    joined = [(a[0], b[1]) for a, b in zip(sentences, sentences[1:], strict=False)]
    return sentences + joined


# Cues shared by every language, so that what the model learns in one carries to the
# others: whom a sentence addresses (an AI, an assistant, a summariser, an agent), what it
# refers to (the reader's summary or answer, "this document"), what it asks for (bulk
# data, credentials, secrecy), and the informal "you" an injected directive uses. Each
# cue, and each pair of cues in one piece, is a feature of its own.
_CUES: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern)
    for name, pattern in {
        "ai": r"\b(?:ai|a\.i\.|ki|ia|i\.a\.|llm|gpt|copilot|chatbot|bot|bots|model|models|"
        r"modell|modelo|modello|modèle|taalmodel|sprachmodell|intelligen[cz]\w*|"
        r"inteligen\w*|automated|automatisch\w*|automatique|automático|automatico|"
        r"automatisiert\w*|geautomatiseerde?|automatyczn\w*|agent|agente|agenten|agents)\b",
        "assistant": r"\b(?:assistant|assistent\w*|asistente|assistente|asystent\w*)\b",
        "summary": r"\b(?:summar\w*|digest|overview|zusammenfass\w*|übersicht|résum\w*|"
        r"synthèse|resum\w*|riassun\w*|riepilog\w*|sintesi|samenvat\w*|overzicht|"
        r"podsumow\w*|streszcz\w*)\b",
        "reply": r"\b(?:answer|reply|response|respond\w*|output|antwort\w*|réponse|réponds|"
        r"respuesta|respond\w*|risposta|rispondi|antwoord\w*|resposta|responde\w*|"
        r"odpowi\w*)\b",
        "processing": r"\b(?:process\w*|read(?:s|ing)?|ingest\w*|index\w*|verarbeit\w*|"
        r"traite\w*|traitant|proces\w*|elabor\w*|verwerk\w*|przetwarza\w*|lees\w*|liest|"
        r"lit|lee|legge|lê|czyta\w*)\b",
        "secret": r"\b(?:quietly|secretly|silently|without (?:telling|mentioning)|do not mention|"
        r"don't mention|omit|leave (?:this|it) out|unbemerkt|erwähne|ohne es|sans le|"
        r"discrètement|sin menciona\w*|en silencio|senza (?:dirlo|menziona\w*)|in silenzio|"
        r"zonder (?:dit|het)|stilletjes|sem o|discretamente|po cichu|nie wspominaj|bez "
        r"informowania)\b",
        "bulk": r"\b(?:all|every|entire|complete|full|whole|alle[ns]?|gesamte\w*|vollständig\w*|"
        r"tous|toutes|complète|entier|todos|todas|completa|tutt[ie]|intero|completo|"
        r"volledige?|hele|wszystk\w*|pełn\w*|cał\w*)\b",
        "sensitive": r"\b(?:passwords?|credentials?|api keys?|tokens?|client list|customer\w*|"
        r"payroll|salar\w*|passwörter|zugangsdaten|kunden\w*|gehalt\w*|mots de passe|"
        r"identifiants|clients|paie|contraseñas|credenciales|clientes|nómina|password|"
        r"credenziali|clienti|stipend\w*|wachtwoorden|inloggegevens|klant\w*|salaris\w*|"
        r"palavras-passe|credenciais|hasła|hasło|dane logowania|klient\w*|płac\w*)\b",
        "outside": r"\b(?:zemail|zlink)\b",
        "account": r"\bzaccount\b",
        "you_informal": r"\b(?:you|your|du|dein\w*|dir|dich|tu|ta|ton|tes|toi|tú|tus|tuo|tua|"
        r"tuoi|tue|jij|jouw|je|teu|tua|ty|twoj\w*|twój|ci)\b",
        "persona": r"\b(?:role|persona|character|rolle|rôle|rol|ruolo|papel|rola|roli|pretend|"
        r"roleplay|incarn\w*|interpret\w*|wciel\w*)\b",
        "approve": r"\b(?:approv\w*|genehmig\w*|freigegeben|valid\w*|approuv\w*|aprob\w*|"
        r"approva\w*|goedge\w*|goedkeur\w*|aprov\w*|zatwierdz\w*)\b",
    }.items()
}


_CUE_WEIGHT = 3.0


def cues(piece: str) -> list[str]:
    """The language-neutral cues in a prepared piece (see ``_CUES``)."""
    return [name for name, pattern in _CUES.items() if pattern.search(piece)]


def features(piece: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Hashed feature indices and their (L2-normalised) values for one prepared piece."""
    grams: set[str] = set()
    padded = f" {piece} "
    for n in (2, 3, 4, 5):
        grams.update(padded[i : i + n] for i in range(len(padded) - n + 1))
    words = _WORD.findall(piece)
    grams.update(f"w:{w}" for w in words)
    grams.update(f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False))
    found = cues(piece)
    cued = {f"c:{c}" for c in found}
    cued.update(f"c:{a}+{b}" for i, a in enumerate(found) for b in found[i + 1 :])
    cued -= grams
    mask = (1 << BITS) - 1
    every = [*grams, *cued]
    index = np.fromiter(
        (zlib.crc32(g.encode("utf-8")) & mask for g in every), dtype=np.int64, count=len(every)
    )
    value = np.full(len(every), 1.0 / np.sqrt(max(len(grams), 1)), dtype=np.float32)
    # A cue stands for many n-grams at once; it is weighed as a few of them.
    value[len(grams) :] *= _CUE_WEIGHT
    return index, value


@dataclass(frozen=True)
class Scored:
    """A document's score and the piece that earned it."""

    score: float
    piece: str


class ScreenClassifier:
    """The trained layer: ``score(text)`` is the probability that ``text`` carries an
    instruction for its reader; ``threshold`` is where the screen refuses."""

    name = "screen-logreg-ngrams"

    def __init__(self, weights: npt.NDArray[np.float32], bias: float, threshold: float) -> None:
        if weights.shape != (1 << BITS,):
            raise ValueError(f"screen weights have shape {weights.shape}, not ({1 << BITS},)")
        self.weights = weights
        self.bias = bias
        self.threshold = threshold

    def scored(self, text: str) -> Scored:
        """The most suspicious piece of ``text`` and its probability."""
        best, where = 0.0, ""
        for start, end in pieces(text):
            piece = prepared(text[start:end])
            if not piece:
                continue
            index, value = features(piece)
            logit = float(self.weights[index] @ value) + self.bias
            p = 1.0 / (1.0 + np.exp(-logit))
            if p > best:
                best, where = p, text[start:end]
        return Scored(score=best, piece=where)

    def score(self, text: str) -> float:
        """The probability that ``text`` carries an instruction for its reader."""
        return self.scored(text).score


def load(path: Path = MODEL_PATH) -> ScreenClassifier:
    """The classifier from a weights file written by :mod:`evals.train`."""
    with np.load(path) as data:
        weights = data["weights"].astype(np.float32)
        bias = float(data["bias"])
        threshold = float(data["threshold"])
    return ScreenClassifier(weights, bias, threshold)


_LOCAL: ScreenClassifier | None = None
_LOCK = threading.Lock()


def local_classifier() -> ScreenClassifier:
    """The process's classifier, from the committed weights (loaded on first use)."""
    global _LOCAL
    if _LOCAL is None:
        with _LOCK:
            if _LOCAL is None:
                _LOCAL = load()
    return _LOCAL
