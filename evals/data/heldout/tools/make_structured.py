#!/usr/bin/env python3
"""Held-out structured identifiers: frames written apart from the finder, values from Faker.

Run with a venv that has Faker:  /tmp/fv/bin/python make_structured.py
Writes structured.jsonl (400 documents) beside this script; fixed seed.
Kinds: phone (Faker's phone_number of 30 locales, every format it has), email, iban
(Faker's iban: valid check digits), card (credit_card_number: Luhn-valid, all issuers),
ip (ipv4 and ipv6), national_id (en_US ssn; en_GB has no NINO provider).
"""

import json
import os
import random

from faker import Faker

SEED = 20261207
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "structured.jsonl")
LOCALES = [
    "en_US",
    "en_GB",
    "en_IE",
    "en_AU",
    "en_CA",
    "en_IN",
    "de_DE",
    "de_AT",
    "de_CH",
    "fr_FR",
    "fr_CH",
    "nl_NL",
    "nl_BE",
    "es_ES",
    "es_MX",
    "it_IT",
    "pt_PT",
    "pt_BR",
    "pl_PL",
    "cs_CZ",
    "sk_SK",
    "hu_HU",
    "ro_RO",
    "sv_SE",
    "da_DK",
    "no_NO",
    "fi_FI",
    "el_GR",
    "tr_TR",
    "hr_HR",
]
FRAMES = [
    "For urgent matters call me on {phone} or write to {email}.",
    "Rückruf bitte unter {phone}. Die Rechnung geht an {email}.",
    "Merci de virer le solde sur le compte {iban} avant la fin du mois.",
    "Payment declined for card {card}; the customer will call back from {phone}.",
    "Login from {ip} at 03:12 UTC was blocked; the user {email} was notified.",
    "Employee onboarding: SSN {ssn}, direct deposit to IBAN {iban}.",
    "Contacto: {phone} · {email}",
    "Bankverbindung: {iban} (Kontoinhaber siehe oben). Tel. {phone}",
    "Il cliente ha pagato con la carta {card} il 3 marzo.",
    "Graag overmaken naar {iban} o.v.v. het factuurnummer. Vragen? Bel {phone}.",
    "Server {ip} stopped answering health checks; on-call: {phone}.",
    "Proszę o kontakt pod numerem {phone} lub mailowo: {email}.",
    "Kártyaszám: {card}, lejárat 09/27. Visszahívás: {phone}",
    "Firewall rule added for {ip} and {ip}.",
    "Nuevo IBAN del proveedor: {iban}. Confirmado por teléfono al {phone}.",
    "W-9 received. TIN/SSN: {ssn}. Remit to {email}.",
    "Refund to card ending in the number {card} has been issued.",
    "Kontakt: {email}, mobil {phone}",
    "Faktura zostanie opłacona przelewem na rachunek {iban}.",
    "VPN session from {ip} (user {email}) lasted 4 hours.",
]


def main():
    rnd = random.Random(SEED)
    Faker.seed(SEED)
    fakers = {loc: Faker(loc) for loc in LOCALES}
    us = fakers["en_US"]
    docs = []
    for i in range(400):
        frame = FRAMES[i % len(FRAMES)]
        loc = rnd.choice(LOCALES)
        fk = fakers[loc]
        text, spans, at = "", [], 0
        import re

        for m in re.finditer(r"\{(\w+)\}", frame):
            text += frame[at : m.start()]
            at = m.end()
            key = m.group(1)
            if key == "phone":
                value, kind = fk.phone_number(), "phone"
            elif key == "email":
                value, kind = fk.email(), "email"
            elif key == "iban":
                value = fk.iban()
                if rnd.random() < 0.5:
                    value = " ".join(value[k : k + 4] for k in range(0, len(value), 4))
                kind = "iban"
            elif key == "card":
                value, kind = fk.credit_card_number(), "card"
                if rnd.random() < 0.5 and len(value) == 16:
                    value = " ".join(value[k : k + 4] for k in range(0, 16, 4))
            elif key == "ip":
                value, kind = (fk.ipv4() if rnd.random() < 0.8 else fk.ipv6()), "ip"
            elif key == "ssn":
                value, kind = us.ssn(), "national_id"
            start = len(text)
            text += value
            spans.append({"type": kind, "start": start, "end": len(text)})
        text += frame[at:]
        docs.append({"id": f"s{i:04d}", "locale": loc, "text": text, "spans": spans})
    with open(OUT, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False) + "\n")
    print(len(docs), "documents")


if __name__ == "__main__":
    main()
