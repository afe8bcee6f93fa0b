"""The anchor's client of a witness: submit a checkpoint with a consistency proof from
the size the witness last cosigned, and keep the cosignature it returns."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx

from domain.audit.checkpoint import SignedNote, Verifier, add_signatures, cosigned
from domain.audit.witness import Submission, WitnessFailed

TIMEOUT = httpx.Timeout(10.0)


class HttpWitness:
    """A witness reached over HTTP, whose cosignatures are checked with ``key``."""

    def __init__(self, url: str, key: Verifier) -> None:
        self._url = url.rstrip("/") + "/add-checkpoint"
        self.key = key

    def cosign(
        self, note: SignedNote, old: int, proof_from: Callable[[int], list[bytes]]
    ) -> SignedNote:
        """``note`` with the witness's cosignature added. ``old`` is the size the witness
        is believed to have cosigned last; when it says another, the proof is made again
        from that size (``proof_from``), once."""
        checkpoint = note.checkpoint()
        for _ in range(2):
            proof = tuple(proof_from(old)) if old else ()
            body = Submission(old, proof, note, checkpoint).encode()
            try:
                answer = httpx.post(self._url, content=body, timeout=TIMEOUT)
            except httpx.HTTPError as e:
                raise WitnessFailed(f"the witness did not answer: {e}") from None
            said = answer.text.strip()
            if answer.status_code == 409 and re.fullmatch(r"[0-9]{1,20}", said):
                known = int(said)
                if known > checkpoint.size:
                    raise WitnessFailed(
                        f"the witness has cosigned {known} entries, more than the "
                        f"{checkpoint.size} the chain has now: it was rolled back",
                        misbehaved=True,
                    )
                if known == old:
                    raise WitnessFailed(
                        "the witness cosigned another tree of this size (a split view)",
                        misbehaved=True,
                    )
                old = known
                continue
            if answer.status_code == 422:
                raise WitnessFailed(
                    "the witness finds the chain does not extend what it cosigned",
                    misbehaved=True,
                )
            if answer.status_code != 200:
                raise WitnessFailed(
                    f"the witness refused ({answer.status_code}): {answer.text.strip()}"
                )
            lines = [line for line in answer.text.splitlines() if line]
            signed = add_signatures(note, lines)
            if cosigned(signed, self.key) is None:
                raise WitnessFailed("the witness's answer is not its cosignature")
            return signed
        raise WitnessFailed("the witness's record moved while it was asked")
