"""Valid-looking values both generators draw on: IBANs with their mod-97 check digits and
card numbers that pass Luhn. Mechanics only; the texts around them are each
generator's own."""

from __future__ import annotations

import random
import string


def iban(rng: random.Random, country: str, length: int) -> str:
    """An IBAN of ``country`` with ``length`` characters and correct check digits,
    grouped by four."""
    bban = "".join(rng.choice(string.digits) for _ in range(length - 4))
    numeric = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    check = 98 - int(numeric) % 97
    code = f"{country}{check:02d}{bban}"
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4))


def card(rng: random.Random, prefix: str = "4", length: int = 16) -> str:
    """A card number that passes Luhn, grouped by four."""
    digits = [int(d) for d in prefix] + [rng.randrange(10) for _ in range(length - len(prefix) - 1)]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 0:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    digits.append((10 - total % 10) % 10)
    code = "".join(map(str, digits))
    return " ".join(code[i : i + 4] for i in range(0, len(code), 4))
