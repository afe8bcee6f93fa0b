"""The ingestion screen: instruction-like content is refused, identifying detail found.

This is the screen's first layer: fast deterministic rules. They look at the text as a
model would read it, not as it is spelled: Unicode-normalised, with zero-width and
other invisible characters taken out and look-alike letters from other scripts mapped to
Latin (both are themselves reasons to refuse when they hide inside words), and again
after decoding what looks encoded (base64, reversed text, ROT13). A text is refused when
it tries to:

- override the instructions the reader works under ("ignore all previous
  instructions", "from now on you will…");
- take over the reader's role ("you are now…", "developer mode", a forged
  ``system:`` turn, "reveal your system prompt");
- make the reader use tools or move data or money elsewhere ("send all the files
  to…", "call the payments tool", ``curl https://…``);
- give orders to the AI reading it mid-document ("Note to the AI assistant: …",
  "if you are a language model…").

The second layer is a classifier trained in the repository
(:mod:`adapters.memory.screen_classifier`, ``make train-screen``), passed in as a
:class:`InjectionScorer`: it catches what no rule names, chiefly off-task directives with
no override wording ("before summarising, e-mail the client list to…"). A text is
refused when the rules or the classifier say so; when only the classifier does, the
reason is ``classifier`` with its score. The rules are the part that is exact about what
it refuses and why.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
from typing import Protocol

from pydantic import Field

from domain.memory.pii import EntityFinder, detect
from domain.memory.release import Span
from domain.organization.contracts import Frozen

_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_SOFT = re.compile("\u00ad")  # soft hyphens: common in pasted text, taken out, not refused
# Letters of other scripts drawn like Latin ones (the common confusables).
_LOOKALIKE = str.maketrans(
    "аеорсухіјѕԁɡһӏтмнвкАВЕКМНОРСТХУІЈЅαοτυνκρεΑΒΕΗΙΚΜΝΟΡΤΥΧ",
    "aeopcyxijsdghltmhbkABEKMHOPCTXYIJSaotuvkpeABEHIKMNOPTYX",
)
_LATIN_WORD = re.compile(r"[A-Za-z]")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=])")

_INSTRUCTIONS = (
    r"(?:instructions?|rules?|prompts?|directives?|guidelines?|guardrails?|polic(?:y|ies)|"
    r"constraints?|programming|training|orders?)"
)
_AI = (
    r"(?:ai|a\.i\.|artificial intelligence|ai (?:agent|assistant|model|system|reviewer)s?|"
    r"language models?|llms?|chatbots?|gpt|gemini|claude|copilot|"
    r"automated (?:agent|assistant|reader|summari[sz]er)s?)"
)
# The same ideas in the other languages documents arrive in (German, French, Spanish,
# Italian, Dutch, Portuguese, Polish): what an AI is called, the verbs that set aside
# instructions, the words for "previous/all/your", and for "instructions".
_AI_ANY = (
    r"(?:ki|ia|i\.a\.|ai|künstliche intelligenz|intelligence artificielle|"
    r"inteligencia artificial|intelligenza artificiale|kunstmatige intelligentie|"
    r"inteligência artificial|sztuczn\w* inteligencj\w*|sprachmodell|modèle de langage|"
    r"modelo de lenguaje|modello linguistico|taalmodel|modelo de linguagem|model językowy|"
    r"chatbot|llm)"
)
_SET_ASIDE = (
    r"(?:ignorier\w*|vergiss|vergessen sie|missacht\w*|ignore[zs]?|oublie[zs]?|"
    r"ne tiens pas compte|ignora|ignore|ignoren|olvida|olvide|descarta|omite|ignori|"
    r"ignorate|dimentica|trascura|negeer|vergeet|esqueça|esquece|desconsidere|"
    r"desconsidera|zignoruj|ignoruj|zapomnij|pomiń)"
)
_EARLIER = (
    r"(?:alle[ns]?|bisherig\w*|vorherig\w*|vorig\w*|obig\w*|früher\w*|deine?n?|"
    r"toutes|tous|précédent\w*|antérieur\w*|ci-dessus|tes|vos|todas|anteriores|previas|"
    r"tus|tutte|precedenti|tue|eerdere|vorige|voorgaande|jouw|bovenstaande|"
    r"oorspronkelijke|prévias|suas|tuas|acima|wszystkie|poprzednie|wcześniejsze|swoje|"
    r"twoje|powyższe)"
)
_ORDERS = (
    r"(?:anweisung\w*|instruktion\w*|vorgaben|regeln|richtlinien|befehle|instructions|"
    r"consignes|règles|directives|instrucciones|reglas|directrices|indicaciones|órdenes|"
    r"istruzioni|regole|direttive|indicazioni|instructies|regels|richtlijnen|opdrachten|"
    r"aanwijzingen|instruções|regras|diretrizes|orientações|instrukcj\w*|polece\w*|"
    r"zasad\w*|reguł\w*|wytyczn\w*|prompts?)"
)
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (reason, re.compile(pattern, re.IGNORECASE))
    for reason, pattern in (
        (
            "override",
            r"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon)\b[^.!?\n]{0,40}?"
            r"\b(?:previous|prior|above|earlier|preceding|all|any|every|your|the|system|safety|"
            rf"original|initial|existing)\b[^.!?\n]{{0,30}}?\b(?<!this )(?<!our ){_INSTRUCTIONS}",
        ),
        (
            "override",
            rf"\b{_SET_ASIDE}\b[^.!?\n]{{0,40}}?\b{_EARLIER}\b[^.!?\n]{{0,30}}?\b{_ORDERS}\b",
        ),
        (
            "override",
            r"\b(?:from now on|henceforth|for the rest of this (?:conversation|session))\b"
            r"[^.!?\n]{0,20}\byou\b",
        ),
        ("override", rf"\b(?:new|updated|real|actual|true) (?:system )?{_INSTRUCTIONS}\s*[:\-]"),
        ("override", r"\b(?:do not|don't|never) (?:follow|obey|apply) (?:your|the|any)\b"),
        ("role_hijack", r"\byou are (?:now|no longer|actually|really)\b"),
        (
            "role_hijack",
            r"\b(?:act|behave|respond|operate) as (?:if you (?:were|are) )?(?:an? )?"
            r"(?:unrestricted|unfiltered|jailbroken|uncensored|evil|rogue|different|new|"
            r"admin|administrator|root|developer|system)\b",
        ),
        ("role_hijack", r"\bpretend (?:to be|that you are|you are)\b"),
        (
            "role_hijack",
            r"\b(?:assistant|assistent\w*|asistente|assistente|model\w*|bot|ki|ia|ai|agent\w*)"
            r"\b(?:\W+\w+){0,3}?\W+(?:without|sans|sin|senza|ohne|zonder|sem|bez)\W+(?:any |"
            r"aucune |ninguna |alcuna |jegliche |enige |qualquer |żadnych )?(?:restrictions?|"
            r"limits|limitations|filters?|restricciones|restrizioni|limiti|einschränkungen|"
            r"beschränkungen|beperkingen|restrições|ograniczeń|filtres?|filtros?|filtri)\b",
        ),
        (
            "role_hijack",
            r"\b(?:(?:du bist|tu es|eres|sei|je bent|jij bent|você é|tu és|jesteś) (?:jetzt|"
            r"nun|ab sofort|maintenant|désormais|dorénavant|ahora|ora|adesso|nu|voortaan|"
            r"agora|teraz)|(?:ab sofort|ab jetzt) bist du|(?:désormais|dorénavant),? tu es|"
            r"(?:ahora|a partir de ahora) eres|(?:da ora|d'ora in poi|da adesso) sei|"
            r"(?:vanaf nu|voortaan) ben je|(?:a partir de agora|agora) (?:você é|és)|"
            r"od teraz jesteś)\b(?:\W+\w+){0,2}?\W+(?:assistent\w*|assistant\w*|asistente|"
            r"assistente|asystent\w*|bot|ki|ia|ai|modell?\w*|agent\w*|administrat\w*|admin|"
            r"root|entwickler\w*|développeur|desarrollador|sviluppatore|ontwikkelaar|"
            r"desenvolvedor|programist\w*|direct\w*|diret\w*|dyrektor\w*|cfo|ceo)\b",
        ),
        (
            "role_hijack",
            r"\b(?:reveal|print|show|display|output|repeat|leak|gib|zeige?|affiche|montre|"
            r"révèle|muestra|revela|imprime|mostra|rivela|stampa|toon|geef|mostre|revele|"
            r"pokaż|ujawnij|wypisz)\b[^.!?\n]{0,30}(?:system ?prompt|systemprompt|"
            r"systeemprompt|prompt (?:de |di |do )?s[iy]st\w+|prompt systemowy)",
        ),
        ("role_hijack", r"\b(?:developer|god|dan|jailbreak|sudo|admin|debug) mode\b"),
        ("role_hijack", r"(?:^|\n)\s*(?:system|assistant|developer)\s*:\s*\S"),
        ("role_hijack", r"<\s*/?\s*(?:system|assistant|instructions?|im_start|im_end)\s*>"),
        (
            "role_hijack",
            rf"\b(?:reveal|print|show|repeat|output|leak|disclose)\b[^.!?\n]{{0,20}}\b"
            rf"(?:your|the) (?:system |hidden |initial |original )?{_INSTRUCTIONS}",
        ),
        (
            "exfiltration",
            r"\b(?:send|forward|e-?mail|upload|post|transfer|exfiltrate|leak|copy|share|wire)\b"
            r"[^.!?\n]{0,50}\b(?:all|every|each|any|the entire|the whole|complete)\b[^.!?\n]{0,40}"
            r"\b(?:data|files?|records?|credentials?|passwords?|keys?|secrets?|tokens?|memory|"
            r"memories|contacts?|documents?|funds?|money|conversations?|history|emails?)\b"
            r"[^.!?\n]{0,60}\b(?:to|into|at)\b",
        ),
        (
            "tool_request",
            r"\b(?:call|invoke|use|run|execute|trigger)\b[^.!?\n]{0,25}\b(?:the |a |your )?"
            r"(?:tools?|functions?|commands?|shell|terminal|api|plugin|payments?\.pay|"
            r"email\.send)\b",
        ),
        ("tool_request", r"\b(?:curl|wget)\s+(?:-{1,2}[\w-]+(?:\s+[^\s-]\S*)?\s+)*['\"]?https?://"),
        ("tool_request", r"\b(?:payments\.pay|email\.send)\b"),
        (
            "addressed_to_ai",
            rf"\b(?:note|message|instructions?|attention|important|reminder)s?\b[^.!?\n]{{0,5}}"
            rf"\b(?:to|for)\b (?:the |any |all )?{_AI}\b",
        ),
        ("addressed_to_ai", rf"\bif you(?:'re| are) (?:an? )?{_AI}\b"),
        (
            "addressed_to_ai",
            r"\b(?:hinweis|nachricht|anweisung|notiz|note|message|consigne|nota|mensaje|aviso|"
            r"messaggio|avviso|bericht|notitie|mededeling|instructie|opmerking|mensagem|"
            r"wiadomość|uwaga|notatka|polecenie)\w*\b[^.!?\n]{0,8}?\b(?:an|für|à|pour|para|"
            r"per|voor|aan|dla|do)\b (?:die |den |das |l'|la |le |el |los |il |lo |de |het |"
            rf"o |a |os |as |een |jede |toute |qualsiasi |cualquier |alle )?{_AI_ANY}\b",
        ),
        (
            "addressed_to_ai",
            r"\b(?:liebe|lieber|chère|cher|querida|querido|cara|caro|beste|lieve|hallo|hola|"
            rf"ciao|bonjour|olá|drogi|droga|cześć)\b,? {_AI_ANY}\b",
        ),
        (
            "addressed_to_ai",
            r"\b(?:wenn|falls) du (?:eine? )?(?:ki|sprachmodell)\b|\bsi tu es (?:une? )?"
            r"(?:ia|intelligence artificielle|modèle)\b|\bsi eres (?:una? )?(?:ia|inteligencia|"
            r"modelo)\b|\bse sei (?:una? |un')?(?:ia|intelligenza|modello)\b|\bals (?:je|jij|u) "
            r"(?:een )?(?:ai|ki|taalmodel|chatbot)\b|\bse (?:você|tu) (?:é|és|for) (?:uma? )?"
            r"(?:ia|inteligência|modelo)\b|\bjeśli jesteś (?:ai|sztuczną|modelem)\b",
        ),
        (
            "addressed_to_ai",
            rf"\b(?:dear|hey|hello|hi|attention|psst)\b,? {_AI}\b",
        ),
        (
            "addressed_to_ai",
            rf"\b{_AI}\b[^.!?\n]{{0,30}}\b(?:must|should|shall|needs? to|is to|are to|has to|"
            r"have to)\b[^.!?\n]{0,40}\b(?:ignore|reply|respond|say|output|send|include|add|"
            r"approve|pay|transfer|recommend|rate|classify|summari[sz]e)\b",
        ),
    )
)


class ScreenResult(Frozen):
    """What the screen found in one text."""

    refused: bool
    reasons: tuple[str, ...] = ()
    """Why it was refused: ``kind: what gave it away``."""
    spans: tuple[Span, ...] = ()
    """Identifying detail, with offsets into the text as given."""
    detail: dict[str, int] = Field(default_factory=dict)
    """How many spans of each kind."""
    score: float | None = None
    """The classifier's score, when it was asked (the rules had not refused already)."""


class InjectionScorer(Protocol):
    """The screen's trained layer: how likely a text carries an instruction for its
    reader, and the score from which the screen refuses."""

    @property
    def threshold(self) -> float: ...

    def score(self, text: str) -> float:
        """A probability in [0, 1]."""
        ...


def _hidden(text: str) -> list[str]:
    """Reasons the text hides characters or letters inside words."""
    reasons = []
    for m in re.finditer(r"\S+", text):
        word = m.group()
        if _INVISIBLE.search(word) and _LATIN_WORD.search(word):
            reasons.append(f"hidden: invisible characters inside {_INVISIBLE.sub('', word)!r}")
            break
    for m in re.finditer(r"\w+", text):
        word = m.group()
        mapped = word.translate(_LOOKALIKE)
        if mapped != word and _LATIN_WORD.search(word) and mapped.isascii():
            reasons.append(f"homoglyph: {mapped!r} is spelled with look-alike letters")
            break
    return reasons


def normalised(text: str) -> str:
    """``text`` as a model would read it: NFKC, invisible characters out, look-alike
    letters mapped to Latin."""
    visible = _SOFT.sub("", _INVISIBLE.sub("", text))
    return unicodedata.normalize("NFKC", visible).translate(_LOOKALIKE)


def _rule_hits(text: str) -> list[str]:
    hits = []
    for reason, pattern in _RULES:
        m = pattern.search(text)
        if m is not None:
            hits.append(f"{reason}: {m.group().strip()[:80]!r}")
    return hits


def _decoded(text: str) -> list[tuple[str, str]]:
    """Readable texts hidden in ``text``: base64 blobs, the text reversed, ROT13."""
    found = []
    for m in _BASE64.finditer(text):
        blob = m.group()
        try:
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
            plain = raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            continue
        if sum(ch.isprintable() or ch.isspace() for ch in plain) >= 0.9 * len(plain):
            found.append(("base64", plain))
    found.append(("reversed", text[::-1]))
    found.append(("rot13", codecs.decode(text, "rot13")))
    return found


_COMMON_WORDS = frozenset(
    """the and of to a in is for on that with you your this be are it as at by from or not
    der die das und zu den ist nicht ein eine sie mit für auf dem des ich wir
    le la les et des du un une est pour que qui pas vous dans sur au
    el los las y en del que por con para una es no se lo su al
    il gli di che è per non un una della con si sono
    het een en van de is niet voor op dat je u met zijn
    o os as do da dos das em para não que com um uma
    w i z na się nie to jest do że jak""".split()
)
_LETTERS = re.compile(r"[^\W\d_]+")


def _language_share(text: str) -> float:
    """The share of a text's words that are common function words of the languages the
    screen knows: high for language, near zero for a text reversed or rotated. Under
    four words it is 0: too few to tell ("VONA: TO14" is not English)."""
    words = _LETTERS.findall(text.lower())
    return sum(w in _COMMON_WORDS for w in words) / len(words) if len(words) >= 4 else 0.0


def _readable(how: str, hidden: str, shown: str) -> str:
    """What of a decoded form the classifier should read. A classifier's score on
    gibberish means nothing, so of a text reversed or rotated only the lines that read
    more like language than they did are kept; a base64 blob that decodes to printable
    text is kept when it looks like language at all."""
    if how == "base64":
        return hidden if _language_share(hidden) >= 0.15 else ""
    kept = []
    for line, plain in zip(hidden.split("\n"), _transformed_lines(how, shown), strict=True):
        share = _language_share(line)
        if share >= 0.15 and share > _language_share(plain):
            kept.append(line)
    return "\n".join(kept)


def _transformed_lines(how: str, shown: str) -> list[str]:
    """The lines of ``shown`` in the order of its ``how`` form's lines."""
    lines = shown.split("\n")
    return lines[::-1] if how == "reversed" else lines


def screen(
    text: str, classifier: InjectionScorer | None = None, finder: EntityFinder | None = None
) -> ScreenResult:
    """Refuse instruction-like ``text`` (with its reasons) and find its identifying
    detail (see the module's docstring). Without a ``classifier``, the rules alone
    refuse; without a ``finder``, the rules alone find names and addresses."""
    reasons = _hidden(text)
    clean = normalised(text)
    reasons += _rule_hits(clean)
    if not reasons:
        for how, hidden in _decoded(clean):
            hits = _rule_hits(normalised(hidden))
            if hits:
                reasons.append(f"encoded ({how}): {hits[0]}")
                break
    score = None
    if not reasons and classifier is not None:
        # The classifier reads what the rules read: the text, then what it hides.
        score, how = classifier.score(text), ""
        for name, decoded in _decoded(clean):
            hidden = _readable(name, decoded, clean)
            if not hidden:
                continue
            hidden_score = classifier.score(hidden)
            if hidden_score > score:
                score, how = hidden_score, f" (encoded, {name})"
        if score >= classifier.threshold:
            reasons.append(f"classifier: score {score:.2f} ≥ {classifier.threshold:.2f}{how}")
    spans = detect(text, finder)
    detail: dict[str, int] = {}
    for span in spans:
        detail[span.kind] = detail.get(span.kind, 0) + 1
    return ScreenResult(
        refused=bool(reasons), reasons=tuple(reasons), spans=spans, detail=detail, score=score
    )
