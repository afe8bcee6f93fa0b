#!/usr/bin/env python3
"""Part 2 of the held-out PII set: hand-written frames filled with Faker names/addresses.

Run with the venv that has Faker installed:  /tmp/fv/bin/python make_faker.py
Writes faker.jsonl (600 documents) next to this script.  Fixed seed -> deterministic
for a given Faker version (see README for the version used).
"""

import importlib
import json
import os
import random
import re

import faker
from faker import Faker

SEED = 20240617
N_PER_FRAME = 5  # 120 frames x 5 = 600 documents
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "faker.jsonl")

# profile -> (locale used for names, locale used for addresses or None)
# A profile whose address locale differs from its name locale is a deliberate pairing
# (Faker has no Latin-script address provider for that name locale).
PROFILES = {
    "hu_HU": ("hu_HU", "hu_HU"),
    "cs_CZ": ("cs_CZ", "cs_CZ"),
    "sk_SK": ("sk_SK", "sk_SK"),
    "pl_PL": ("pl_PL", "pl_PL"),
    "tr_TR": ("tr_TR", "de_DE"),
    "el_GR": ("el_GR", "el_GR"),
    "ro_RO": ("ro_RO", "ro_RO"),
    "sv_SE": ("sv_SE", "sv_SE"),
    "fi_FI": ("fi_FI", "fi_FI"),
    "da_DK": ("da_DK", "da_DK"),
    "no_NO": ("no_NO", "no_NO"),
    "nl_NL": ("nl_NL", "nl_NL"),
    "nl_BE": ("nl_BE", "nl_BE"),
    "de_DE": ("de_DE", "de_DE"),
    "de_AT": ("de_AT", "de_AT"),
    "de_CH": ("de_CH", "de_CH"),
    "fr_FR": ("fr_FR", "fr_FR"),
    "fr_CH": ("fr_CH", "fr_CH"),
    "fr_CA": ("fr_CA", "fr_CA"),
    "fr_DZ": ("fr_DZ", "fr_DZ"),
    "it_IT": ("it_IT", "it_IT"),
    "es_ES": ("es_ES", "es_ES"),
    "es_MX": ("es_MX", "es_MX"),
    "es_AR": ("es_AR", "es_AR"),
    "es_CO": ("es_CO", "es_CO"),
    "es_CL": ("es_CL", "es_CL"),
    "pt_BR": ("pt_BR", "pt_BR"),
    "pt_PT": ("pt_PT", "pt_PT"),
    "en_IN": ("en_IN", "en_IN"),
    "en_IE": ("en_IE", "en_IE"),
    "en_GB": ("en_GB", "en_GB"),
    "en_US": ("en_US", "en_US"),
    "en_NZ": ("en_NZ", "en_NZ"),
    "en_AU": ("en_AU", "en_AU"),
    "en_CA": ("en_CA", "en_CA"),
    "hr_HR": ("hr_HR", "hr_HR"),
    "sl_SI": ("sl_SI", "sl_SI"),
    "vi_VN": ("vi_VN", "vi_VN"),
    "zu_ZA": ("zu_ZA", "zu_ZA"),
    "id_ID": ("id_ID", "id_ID"),
    "fil_PH": ("fil_PH", "fil_PH"),
    "az_AZ": ("az_AZ", "az_AZ"),
    "ja_JP": ("ja_JP", None),  # romanised names only; Faker's ja_JP addresses are kanji
    "ga_IE": ("ga_IE", "en_IE"),
    "yo_NG": ("yo_NG", None),
    "ig_NG": ("ig_NG", None),
    "ha_NG": ("ha_NG", None),
    "en_NG": ("en_NG", None),
    "en_KE": ("en_KE", None),
    "tw_GH": ("tw_GH", None),
    "sw": ("sw", None),
    "lt_LT": ("lt_LT", None),
    "lv_LV": ("lv_LV", None),
    "et_EE": ("et_EE", None),
    "is_IS": ("is_IS", None),
    "en_PK": ("en_PK", None),
}
# which profiles may fill a frame written in a given language ('en' frames take any profile)
LANG_PROFILES = {
    "de": ["de_DE", "de_AT", "de_CH", "tr_TR"],
    "fr": ["fr_FR", "fr_CH", "fr_CA", "fr_DZ"],
    "es": ["es_ES", "es_MX", "es_AR", "es_CO", "es_CL"],
    "it": ["it_IT"],
    "nl": ["nl_NL", "nl_BE"],
    "pt": ["pt_PT", "pt_BR"],
    "pl": ["pl_PL"],
    "cs": ["cs_CZ", "sk_SK"],
    "hu": ["hu_HU"],
    "sv": ["sv_SE"],
    "tr": ["tr_TR"],
    "ro": ["ro_RO"],
    "el": ["el_GR"],
    "en": sorted(PROFILES),
}
FAMILY_FIRST = {"hu_HU"}
GENERATIONAL = {"Jr.", "Sr.", "II", "III", "IV", "V"}


FRAMES_EN = [
    (
        "en",
        "email",
        """Subject: Delivery address update

Hi {first},

Please note that from next month our goods-in address changes to:
{address}

Anything booked before the 15th can still go to the old site. Let me know if your drivers need a gate code.

Thanks,
{person2}""",
    ),
    (
        "en",
        "invoice",
        """INVOICE 2024-0{n3}
Bill to: {person}
{address}

Consulting services (May)      14 h x 85.00 = 1,190.00
VAT                                            238.00
Total due                                    1,428.00
Payment within 30 days. Thank you for your business.""",
    ),
    (
        "en",
        "chat",
        """[09:12] {first_lc}: morning, anyone know if the courier came?
[09:13] {first2_lc}: yes, box is at reception
[09:13] {first_lc}: legend, thx
[09:15] {first2_lc}: also the printer is jammed again fyi""",
    ),
    (
        "en",
        "meeting_notes",
        """Weekly sync – notes
Attendees: {person}, {person2}, {person3}
1. Q3 budget: {first} to circulate a draft by Friday.
2. New supplier onboarding delayed – waiting on bank details.
3. Office move: {first2} confirmed the lease starts 1 September.
Next meeting: Tuesday 10:00.""",
    ),
    (
        "en",
        "hr_letter",
        """Dear {first},

We are pleased to confirm your promotion to Team Lead, effective 1 July. Your new salary and benefits are set out in the attached schedule.

Please return a signed copy to HR. For your records, the address we hold for you is:
{address}

Congratulations!
{person2}
Head of People""",
    ),
    (
        "en",
        "support_ticket",
        """Ticket #{n5} – Cannot log in
Requester: {person}
Description: User reports "account locked" after password reset. Agent {first2} unlocked the account and reset MFA.
Status: Resolved""",
    ),
    (
        "en",
        "crm_note",
        """Contact: {person} (Purchasing)
Site: {address}
Notes: Met at the trade show. Interested in the premium range; asked for volume pricing. {first} prefers email over calls. Follow up in two weeks.""",
    ),
    (
        "en",
        "delivery_note",
        """DELIVERY NOTE DN-{n5}
Deliver to:
{person}
{address}

Qty  Item
4    Office chair, black
2    Standing desk frame
Received by: ____________""",
    ),
    (
        "en",
        "contract",
        """This Agreement is made between Brightwater Services Ltd ("Supplier") and {person}, residing at {address} ("Client"). The Supplier shall provide monthly bookkeeping services for a fee of 250.00 per month, payable in advance.""",
    ),
    (
        "en",
        "signature",
        """Thanks again for the quick turnaround.

Best regards,
{person}
Operations Manager
{address}
T: +44 20 7946 0{n3}""",
    ),
    (
        "en",
        "form",
        """CUSTOMER REGISTRATION
Full name: {person}
Postal address: {address}
Preferred contact: email
Marketing consent: no
Signature: ____________""",
    ),
    (
        "en",
        "calendar",
        """Event: Contract review
When: Thu 14:00–15:00
Where: Room 3B
Organizer: {person}
Guests: {person2}, {person3}
Notes: bring the redlined draft.""",
    ),
    (
        "en",
        "table",
        """name,role,start_date
{person},Account Manager,2023-04-01
{person2},Analyst,2022-11-15
{person3},Warehouse Lead,2021-06-07""",
    ),
    (
        "en",
        "email",
        """Subject: Re: Your order has shipped

Dear {tperson},

Your order is on its way to:
{address}

Estimated delivery is 3–5 working days. You can track the parcel with the link in your account.

Kind regards,
Customer Care""",
    ),
    (
        "en",
        "email",
        """Subject: Intro

Hi {first},

Let me introduce {person2}, who runs procurement at our Leeds site. {first2}, {first} is the consultant I mentioned who helped us cut freight costs last year.

I'll let you two take it from here.

Best,
{person3}""",
    ),
    (
        "en",
        "cv",
        """{person}
{address}

EXPERIENCE
2019–present  Senior Accountant, Northgate Holdings
2015–2019     Accounts Assistant, Riverside Foods

EDUCATION
BSc Accounting and Finance""",
    ),
    (
        "en",
        "email",
        """Subject: Change of registered office

Dear Sirs,

Please update your records: with effect from 1 August our registered office will be
{address}

Invoices and statutory correspondence should be sent there.

Yours faithfully,
Company Secretary""",
    ),
    (
        "en",
        "chat",
        """{first}: can you approve the expense claim from {person2}?
{first3}: which one, the hotel or the taxi?
{first}: hotel. 2 nights in Frankfurt
{first3}: approved ✅""",
    ),
    (
        "en",
        "meeting_notes",
        """1:1 {person} / {person2}
- Workload OK, wants more client-facing work.
- Agreed {first} shadows the Q3 renewals.
- Training budget approved for the Excel course.""",
    ),
    (
        "en",
        "email",
        """Subject: Viewing confirmed

Dear {tperson},

Your viewing of the property at {address} is confirmed for Saturday at 11:00. Our agent {person2} will meet you outside.

Please bring photo ID.

Regards,
Lettings Team""",
    ),
    (
        "en",
        "invoice",
        """Remit to:
{address}

Customer: {person}
Invoice no. {n5}
Amount: 3,420.00
Bank transfer only – please quote the invoice number.""",
    ),
    (
        "en",
        "support_ticket",
        """Case {n5}: Refund request
Customer {person} says the blender arrived damaged. Photos attached. Replacement shipped to {address}. Handled by {person2}.""",
    ),
    (
        "en",
        "form",
        """VISITOR LOG
Name: {person}
Company: Harbourline Logistics
Host: {person2}
Time in: 09:40  Time out: 11:15
Badge no.: V-{n3}""",
    ),
    (
        "en",
        "hr_letter",
        """Private & Confidential
{person}
{address}

Dear {first},

Further to our meeting on Monday, I confirm that your request for flexible working (four days per week) has been approved from 1 September.

Yours sincerely,
{person2}""",
    ),
    (
        "en",
        "email",
        """Subject: Address for the returns

Hi,

Please send the faulty units back to our repair partner rather than to us:

{address}

Mark the box "RMA {n5}". No contact name needed.

Thanks""",
    ),
    (
        "en",
        "calendar",
        """Reminder: Call with {person}
Fri 09:30 (30 min)
Topic: renewal pricing
Dial-in details in the invite.""",
    ),
    (
        "en",
        "crm_note",
        """Lead: {person}
Source: website form
Message: "We need 20 laptops configured for new starters by the end of the month." Assigned to {person2}. Called back same day; {first} will send the spec.""",
    ),
    (
        "en",
        "table",
        """| Tenant | Unit address | Rent |
|---|---|---|
| {person} | {address} | 1,150 |
| {person2} | {address2} | 980 |""",
    ),
    (
        "en",
        "email",
        """Subject: Thank you

Dear {tperson},

Thank you for hosting our team last week. The plant tour was the highlight of the trip, and {person2} has already started on the process changes we discussed.

Warm regards,
{person3}""",
    ),
    (
        "en",
        "delivery_note",
        """Collection from: {address}
Deliver to: {address2}
Contact on site: {person}
Goods: 2 pallets, 640 kg
Tail-lift required.""",
    ),
    (
        "en",
        "email",
        """Subject: Reference for {person}

To whom it may concern,

{person} worked for us as a bookkeeper from 2018 to 2023. {first} was reliable, accurate and well liked by clients. I recommend {first} without reservation.

{person2}
Director""",
    ),
    (
        "en",
        "signature",
        """Regards,
{person} | Finance Director
Tel. +1 555 0{n3} 2210
This email is confidential.""",
    ),
    (
        "en",
        "contract",
        """LEASE – KEY TERMS
Landlord: {person}
Tenant: Quickfix Repairs Ltd
Premises: {address}
Term: 5 years from 1 October
Rent: 18,000 per annum, payable quarterly in advance""",
    ),
    (
        "en",
        "support_ticket",
        """#{n5} Wrong delivery address
Customer wrote: "Please change the delivery address on my open order to {address}. I moved last week."
Agent {first2}: updated before dispatch. Confirmed to customer.""",
    ),
    (
        "en",
        "chat",
        """[{first_lc}] did the invoice from the Lisbon supplier get paid?
[{first2_lc}] yes on friday
[{first_lc}] 👍 i'll tell {first3}""",
    ),
    (
        "en",
        "email",
        """Subject: New starter – IT setup

Hi team,

{person} joins Finance on Monday. Please set up a laptop, an email account and access to the ERP. {first}'s manager is {person2}.

Thanks,
HR""",
    ),
    (
        "en",
        "form",
        """Change of details
Employee: {person}
Old address: {address}
New address: {address2}
Effective date: 01/07""",
    ),
    (
        "en",
        "meeting_notes",
        """Minutes – site visit
Present: {person} (client), {person2} (project manager)
Location: {address}
Findings: roof membrane damaged on the north side; gutters blocked. Quote to follow within a week.""",
    ),
    (
        "en",
        "email",
        """Subject: Parcel waiting

Hi {first},

A parcel addressed to you arrived at reception today. It's behind the desk – please collect it before Friday.

{first2} (reception)""",
    ),
    (
        "en",
        "crm_note",
        """Account: Lakeside Dental
Billing address: {address}
Practice manager: {person}
Renewal due in September; happy with service, asked about adding a second site.""",
    ),
    (
        "en",
        "invoice",
        """PRO FORMA INVOICE
Consignee: {person}
Delivery address:
{address}
Goods: spare parts as per quotation Q-{n5}
Incoterm: DAP""",
    ),
    (
        "en",
        "email",
        """Subject: Condolences

Dear {first},

All of us at the office were very sorry to hear about your father. Please take all the time you need; {person2} will cover your clients until you are back.

With deepest sympathy,
{person3}""",
    ),
]

FRAMES_XX = [
    # German
    (
        "de",
        "email",
        """Betreff: Neue Lieferadresse

Hallo {first},

ab sofort bitte alle Lieferungen an folgende Adresse:
{address}

Die alte Halle wird Ende des Monats geräumt.

Viele Grüße
{person2}""",
    ),
    (
        "de",
        "invoice",
        """RECHNUNG Nr. {n5}
Rechnungsempfänger:
{person}
{address}

Beratungsleistung Mai   1.200,00 €
zzgl. 19 % USt.           228,00 €
Gesamtbetrag            1.428,00 €""",
    ),
    (
        "de",
        "meeting_notes",
        """Protokoll Projektrunde
Teilnehmer: {person}, {person2}, {person3}
TOP 1: Terminplan – Abnahme verschiebt sich um eine Woche.
TOP 2: Budget – {first2} klärt die Nachträge mit dem Kunden.
Nächster Termin: Donnerstag, 9 Uhr.""",
    ),
    (
        "de",
        "hr_letter",
        """Sehr geehrte(r) {tperson},

wir bestätigen Ihnen hiermit Ihre Elternzeit vom 1. September bis 28. Februar. Bitte teilen Sie uns Änderungen Ihrer Anschrift ({address}) rechtzeitig mit.

Mit freundlichen Grüßen
{person2}, Personalabteilung""",
    ),
    (
        "de",
        "chat",
        """{first}: hat jemand den Schlüssel für den Transporter?
{first2}: liegt im Büro von {first3}
{first}: danke!""",
    ),
    (
        "de",
        "delivery_note",
        """Lieferschein LS-{n5}
Empfänger: {person}
Lieferanschrift: {address}
Ware: 12 Kartons Kopierpapier A4
Erhalten: __________""",
    ),
    # French
    (
        "fr",
        "email",
        """Objet : Changement d'adresse de facturation

Bonjour {first},

Merci de noter notre nouvelle adresse de facturation :
{address}

Les factures déjà émises restent valables.

Cordialement,
{person2}""",
    ),
    (
        "fr",
        "invoice",
        """FACTURE N° {n5}
Client : {person}
{address}
Prestation : maintenance informatique (juin)
Total TTC : 540,00 €""",
    ),
    (
        "fr",
        "meeting_notes",
        """Compte rendu – réunion d'équipe
Présents : {person}, {person2}
Absent : {person3}
1. Salon professionnel : {first} réserve le stand.
2. Recrutement : deux entretiens la semaine prochaine.""",
    ),
    (
        "fr",
        "hr_letter",
        """Madame, Monsieur {last},

Nous avons le plaisir de vous confirmer votre embauche en CDI à compter du 2 septembre. Votre contrat vous sera adressé à votre domicile : {address}.

Bien cordialement,
{person2}, Ressources humaines""",
    ),
    (
        "fr",
        "chat",
        """{first_lc} : qqn a les codes du wifi invités ?
{first2_lc} : sur le tableau à l'accueil
{first_lc} : merci 🙏""",
    ),
    (
        "fr",
        "support_ticket",
        """Ticket {n5} – Colis endommagé
Client : {person}
Adresse de livraison : {address}
Action : renvoi du produit, traité par {first2}.""",
    ),
    # Spanish
    (
        "es",
        "email",
        """Asunto: Dirección de entrega

Hola {first}:

Te confirmo que el pedido se enviará a:
{address}

Cualquier cambio, avísame antes del jueves.

Saludos,
{person2}""",
    ),
    (
        "es",
        "invoice",
        """FACTURA N.º {n5}
Cliente: {person}
Domicilio: {address}
Concepto: servicios de diseño gráfico
Total: 1.210,00 €""",
    ),
    (
        "es",
        "meeting_notes",
        """Acta de reunión
Asistentes: {person}, {person2}, {person3}
1. Presupuesto anual: {first} presentará la propuesta.
2. Proveedores: se pedirán tres ofertas.""",
    ),
    (
        "es",
        "contract",
        """Reunidos, de una parte D./D.ª {person}, con domicilio en {address}, y de otra parte la empresa Servicios Integrales del Norte S.L., acuerdan lo siguiente: el arrendamiento del local por un periodo de tres años.""",
    ),
    (
        "es",
        "chat",
        """{first}: ¿quién cierra hoy la oficina?
{first2}: yo, tranqui
{first}: genial, gracias. {first3} sale antes""",
    ),
    (
        "es",
        "crm_note",
        """Cliente: {person}
Dirección: {address}
Nota: solicita presupuesto para 30 sillas de oficina. Seguimiento por {person2} la próxima semana.""",
    ),
    # Italian
    (
        "it",
        "email",
        """Oggetto: Indirizzo di spedizione

Gentile {tperson},

la merce verrà spedita al seguente indirizzo:
{address}

Cordiali saluti,
{person2}""",
    ),
    (
        "it",
        "invoice",
        """FATTURA N. {n3}/2024
Cliente: {person}
{address}
Descrizione: consulenza fiscale
Totale: € 732,00""",
    ),
    (
        "it",
        "meeting_notes",
        """Verbale riunione
Presenti: {person}, {person2}
1. Nuovo listino: {first} lo invia ai clienti entro venerdì.
2. Ferie estive: chiusura dal 12 al 23 agosto.""",
    ),
    (
        "it",
        "chat",
        """{first_lc}: chi ha preso il portatile della sala riunioni?
{first2_lc}: io, lo riporto dopo pranzo
{first_lc}: ok grazie""",
    ),
    (
        "it",
        "delivery_note",
        """DOCUMENTO DI TRASPORTO N. {n3}
Destinatario: {person}
Luogo di consegna: {address}
Colli: 3""",
    ),
    (
        "it",
        "hr_letter",
        """Gentile {first},

con la presente Le comunichiamo l'approvazione della Sua richiesta di part-time a partire dal 1° ottobre.

Distinti saluti,
{person2}
Ufficio Personale""",
    ),
    # Dutch
    (
        "nl",
        "email",
        """Onderwerp: Nieuw afleveradres

Beste {first},

Vanaf volgende week graag alles leveren op:
{address}

Groet,
{person2}""",
    ),
    (
        "nl",
        "invoice",
        """FACTUUR {n5}
Aan: {person}
{address}
Omschrijving: schilderwerk voorgevel
Totaal: € 2.420,00""",
    ),
    (
        "nl",
        "meeting_notes",
        """Notulen
Aanwezig: {person}, {person2}, {person3}
1. Planning: {first2} maakt het rooster voor augustus.
2. Rondvraag: geen.""",
    ),
    (
        "nl",
        "chat",
        """{first_lc}: wie haalt de lunch?
{first2_lc}: ik ga wel
{first_lc}: top, voor mij een broodje kaas""",
    ),
    (
        "nl",
        "crm_note",
        """Relatie: {person}
Adres: {address}
Notitie: wil offerte voor onderhoudscontract cv-ketel. Terugbellen door {first2}.""",
    ),
    (
        "nl",
        "form",
        """Aanmeldformulier
Naam: {person}
Adres: {address}
Handtekening: __________""",
    ),
    # Portuguese
    (
        "pt",
        "email",
        """Assunto: Morada de entrega

Olá {first},

A encomenda será enviada para:
{address}

Cumprimentos,
{person2}""",
    ),
    (
        "pt",
        "invoice",
        """FATURA N.º {n5}
Cliente: {person}
Morada: {address}
Serviço: manutenção de ar condicionado
Total: 369,00 €""",
    ),
    (
        "pt",
        "meeting_notes",
        """Ata da reunião
Presentes: {person}, {person2}
1. Metas do trimestre revistas.
2. {first} fica responsável pelo relatório de vendas.""",
    ),
    (
        "pt",
        "chat",
        """{first}: alguém viu o carregador do projetor?
{first2}: tá na gaveta da recepção
{first}: valeu!""",
    ),
    (
        "pt",
        "form",
        """FICHA DE CLIENTE
Nome: {person}
Endereço: {address}
Forma de pagamento: boleto""",
    ),
    (
        "pt",
        "hr_letter",
        """Prezado(a) {first},

Informamos que as suas férias foram aprovadas para o período de 1 a 20 de agosto.

Atenciosamente,
{person2}
Recursos Humanos""",
    ),
    # Polish
    (
        "pl",
        "email",
        """Temat: Adres dostawy

Dzień dobry,

proszę o wysyłkę zamówienia na adres:
{address}

Pozdrawiam
{person}""",
    ),
    (
        "pl",
        "invoice",
        """FAKTURA VAT nr {n3}/06/2024
Nabywca: {person}
{address}
Usługa: serwis kotła gazowego
Razem brutto: 492,00 zł""",
    ),
    (
        "pl",
        "meeting_notes",
        """Notatka ze spotkania
Obecni: {person}, {person2}, {person3}
1. Harmonogram dostaw – bez zmian.
2. {first} przygotuje raport do piątku.""",
    ),
    (
        "pl",
        "chat",
        """{first}: kto ma dziś dyżur na recepcji?
{first2}: ja do 14, potem {first3}
{first}: ok dzięki""",
    ),
    (
        "pl",
        "hr_letter",
        """Pani/Pan {person}
{address}

Informujemy, że z dniem 1 lipca Pani/Pana wynagrodzenie zasadnicze zostaje podwyższone.

{person2}
Dział Kadr""",
    ),
    (
        "pl",
        "form",
        """FORMULARZ ZWROTU
Imię i nazwisko: {person}
Adres: {address}
Powód zwrotu: nie spełnia oczekiwań""",
    ),
    # Czech
    (
        "cs",
        "email",
        """Předmět: Doručovací adresa

Dobrý den,

zboží prosím doručte na adresu:
{address}

Děkuji,
{person}""",
    ),
    (
        "cs",
        "invoice",
        """FAKTURA č. 2024{n3}
Odběratel: {person}
{address}
Předmět: oprava střechy
Celkem: 38 720 Kč""",
    ),
    (
        "cs",
        "meeting_notes",
        """Zápis z porady
Přítomni: {person}, {person2}
1. Plán výroby na červenec schválen.
2. {first2} zajistí objednávku materiálu.""",
    ),
    (
        "cs",
        "chat",
        """{first}: máte někdo klíče od skladu?
{first2}: má je {first3}
{first}: díky""",
    ),
    (
        "cs",
        "contract",
        """Prodávající: {person}, bytem {address}
Kupující: STAVBY JIH s.r.o.
Předmět smlouvy: prodej použitého dodávkového vozidla.""",
    ),
    (
        "cs",
        "delivery_note",
        """DODACÍ LIST {n5}
Příjemce: {person}
Místo dodání: {address}
Převzal: __________""",
    ),
    # Hungarian
    (
        "hu",
        "email",
        """Tárgy: Szállítási cím

Kedves {person}!

A megrendelt árut az alábbi címre küldjük:
{address}

Üdvözlettel:
{person2}""",
    ),
    (
        "hu",
        "invoice",
        """SZÁMLA {n5}
Vevő: {person}
Cím: {address}
Megnevezés: irodai takarítás (június)
Bruttó: 190 500 Ft""",
    ),
    (
        "hu",
        "meeting_notes",
        """Emlékeztető
Jelen vannak: {person}, {person2}, {person3}
1. A nyári szabadságok rendje elfogadva.
2. Az új beszállítóval a tárgyalást {person2} vezeti.""",
    ),
    (
        "hu",
        "chat",
        """{first}: ki viszi a postát ma?
{first2}: majd én, 3 körül
{first}: köszi!""",
    ),
    (
        "hu",
        "hr_letter",
        """Tisztelt {person}!

Értesítjük, hogy munkabérét július 1-jétől emeljük.

Üdvözlettel:
{person2}
HR""",
    ),
    (
        "hu",
        "form",
        """Jelentkezési lap
Név: {person}
Lakcím: {address}
Aláírás: __________""",
    ),
    # Swedish
    (
        "sv",
        "email",
        """Ämne: Ny leveransadress

Hej {first}!

Från och med nästa vecka levererar ni till:
{address}

Tack!
{person2}""",
    ),
    (
        "sv",
        "invoice",
        """FAKTURA {n5}
Kund: {person}
{address}
Avser: målning av kontor
Att betala: 18 750 kr""",
    ),
    (
        "sv",
        "meeting_notes",
        """Mötesanteckningar
Närvarande: {person}, {person2}, {person3}
1. Budget för hösten godkänd.
2. {first} bokar lokal för kickoff.""",
    ),
    (
        "sv",
        "chat",
        """{first_lc}: någon som vet var laddaren är?
{first2_lc}: i lådan under tv:n
{first_lc}: tack!""",
    ),
    (
        "sv",
        "hr_letter",
        """Hej {first},

Vi bekräftar härmed din föräldraledighet från 1 september till 31 december.

Vänliga hälsningar
{person2}, HR""",
    ),
    (
        "sv",
        "form",
        """ANSÖKAN
Namn: {person}
Adress: {address}
Underskrift: __________""",
    ),
    # Turkish
    (
        "tr",
        "email",
        """Konu: Toplantı

Merhaba {first} Bey/Hanım,

Yarınki toplantıya {person2} de katılacak. Saat 10:00'da ofiste görüşmek üzere.

Saygılarımla,
{person3}""",
    ),
    (
        "tr",
        "chat",
        """{first}: kargo geldi mi?
{first2}: geldi, depoya bıraktım
{first}: süper, teşekkürler""",
    ),
    (
        "tr",
        "meeting_notes",
        """Toplantı notları
Katılımcılar: {person}, {person2}, {person3}
1. Haziran satışları hedefin üzerinde.
2. Yeni katalog Temmuz'da basılacak.""",
    ),
    (
        "tr",
        "hr_letter",
        """Sayın {person},

Yıllık izin talebiniz 1–14 Ağustos tarihleri için onaylanmıştır.

İnsan Kaynakları
{person2}""",
    ),
    (
        "tr",
        "delivery_note",
        """SEVK İRSALİYESİ {n5}
Alıcı: {person}
Teslimat adresi (Almanya): {address}
Ürün: 40 koli tekstil""",
    ),
    (
        "tr",
        "invoice",
        """PROFORMA FATURA
Alıcı: {person}
Adres: {address}
Ürün: pamuklu havlu, 500 adet
Teslim şekli: DAP""",
    ),
    # Romanian
    (
        "ro",
        "email",
        """Subiect: Adresă de livrare

Bună ziua, {first},

Comanda va fi livrată la adresa:
{address}

Cu stimă,
{person2}""",
    ),
    (
        "ro",
        "invoice",
        """FACTURĂ nr. {n5}
Cumpărător: {person}
Adresa: {address}
Servicii: consultanță contabilă
Total: 1.190,00 lei""",
    ),
    (
        "ro",
        "meeting_notes",
        """Minută ședință
Participanți: {person}, {person2}
1. Bugetul pe trimestrul III a fost aprobat.
2. {first} pregătește oferta pentru client.""",
    ),
    (
        "ro",
        "chat",
        """{first}: a venit curierul?
{first2}: da, coletul e la recepție
{first}: mersi!""",
    ),
    (
        "ro",
        "hr_letter",
        """Către: {person}
{address}

Vă comunicăm aprobarea cererii de concediu de odihnă pentru perioada 1–15 august.

{person2}, Resurse Umane""",
    ),
    (
        "ro",
        "form",
        """CERERE
Nume și prenume: {person}
Domiciliu: {address}
Semnătura: __________""",
    ),
    # Greek
    (
        "el",
        "email",
        """Θέμα: Διεύθυνση παράδοσης

Καλημέρα {first},

Η παραγγελία θα παραδοθεί στη διεύθυνση:
{address}

Με εκτίμηση,
{person2}""",
    ),
    (
        "el",
        "invoice",
        """ΤΙΜΟΛΟΓΙΟ {n5}
Πελάτης: {person}
Διεύθυνση: {address}
Περιγραφή: υπηρεσίες λογιστή
Σύνολο: 310,00 €""",
    ),
    (
        "el",
        "meeting_notes",
        """Πρακτικά συνάντησης
Παρόντες: {person}, {person2}, {person3}
1. Εγκρίθηκε ο προϋπολογισμός.
2. Ο/Η {first2} θα ετοιμάσει την προσφορά.""",
    ),
    (
        "el",
        "chat",
        """{first}: Ήρθε ο κούριερ;
{first2}: Ναι, το δέμα είναι στην υποδοχή
{first}: Ευχαριστώ!""",
    ),
    (
        "el",
        "hr_letter",
        """Προς: {person}
{address}

Σας ενημερώνουμε ότι η αίτηση άδειας σας εγκρίθηκε.

{person2}
Τμήμα Προσωπικού""",
    ),
    (
        "el",
        "form",
        """ΑΙΤΗΣΗ
Ονοματεπώνυμο: {person}
Διεύθυνση: {address}
Υπογραφή: __________""",
    ),
]

FRAMES = FRAMES_EN + FRAMES_XX
assert len(FRAMES) == 120, len(FRAMES)

PH = re.compile(r"\{(\w+)\}")
PERSON_KEYS = re.compile(r"^(person|tperson|first|last)(\d?)(_lc)?$")

_fakers = {}


def fk(loc):
    if loc not in _fakers:
        f = Faker(loc)
        f.seed_instance(SEED + len(_fakers) * 7919)
        _fakers[loc] = f
    return _fakers[loc]


def _titles(loc):
    try:
        P = importlib.import_module(f"faker.providers.person.{loc}").Provider
    except ImportError:
        P = importlib.import_module("faker.providers.person.en_US").Provider
    pre = set()
    for a in ("prefixes", "prefixes_male", "prefixes_female", "prefixes_nonbinary"):
        v = getattr(P, a, ())
        pre |= set(v.keys() if isinstance(v, dict) else v)
    suf = set()
    for a in ("suffixes", "suffixes_male", "suffixes_female", "suffixes_nonbinary"):
        v = getattr(P, a, ())
        suf |= set(v.keys() if isinstance(v, dict) else v)
    return sorted(pre, key=len, reverse=True), sorted(suf, key=len, reverse=True)


def split_titles(loc, raw):
    """'Dr. Kiss Anna' -> ('Dr.', 'Kiss Anna', ''); post-nominals go to suffix, Jr./III stay in the name."""
    pre, suf = _titles(loc)
    prefix, core, suffix = [], raw.strip(), ""
    changed = True
    while changed:
        changed = False
        for p in pre:
            if p and core.startswith(p + " "):
                prefix.append(p)
                core = core[len(p) + 1 :].strip()
                changed = True
                break
    for s in suf:
        if s and core.endswith(" " + s) and s not in GENERATIONAL:
            suffix = s
            core = core[: -(len(s) + 1)].strip()
            break
    return " ".join(prefix), core, suffix


def make_entity(loc, rnd, need_parts):
    f = fk(loc)
    if loc == "ja_JP":
        first, last = f.first_romanized_name(), f.last_romanized_name()
        form = rnd.random()
        full = (
            f"{first} {last}"
            if form < 0.5
            else (f"{last} {first}" if form < 0.8 else f"{last.upper()} {first}")
        )
        return {
            "full": full,
            "first": first,
            "last": last,
            "prefix": "",
            "suffix": "",
            "form": "ja_romanised",
        }
    g = rnd.choice(["female", "male"])
    first = getattr(f, f"first_name_{g}")()
    last = getattr(f, f"last_name_{g}")()
    built = f"{last} {first}" if loc in FAMILY_FIRST else f"{first} {last}"
    if need_parts:
        return {
            "full": built,
            "first": first,
            "last": last,
            "prefix": "",
            "suffix": "",
            "form": "first_last",
        }
    r = rnd.random()
    if r < 0.55:
        prefix, core, suffix = split_titles(loc, f.name())
        return {
            "full": core,
            "first": None,
            "last": None,
            "prefix": prefix,
            "suffix": suffix,
            "form": "name()",
        }
    if r < 0.85:
        return {
            "full": built,
            "first": first,
            "last": last,
            "prefix": "",
            "suffix": "",
            "form": "first_last",
        }
    init = first[0] + "."
    full = f"{last} {init}" if loc in FAMILY_FIRST else f"{init} {last}"
    return {
        "full": full,
        "first": None,
        "last": last,
        "prefix": "",
        "suffix": "",
        "form": "initial_last",
    }


_flatten_toggle = [0]


def make_address(loc, rnd):
    lines = [l.strip() for l in fk(loc).address().split("\n") if l.strip()]
    if len(lines) > 1:
        _flatten_toggle[0] ^= 1
        if _flatten_toggle[0]:  # every other multi-line address is flattened
            return ", ".join(l.rstrip(",").strip() for l in lines), "flattened"
        return "\n".join(lines), "multiline"
    return lines[0], "single_line"


def render(frame, profile, rnd):
    lang, genre, tmpl = frame
    keys = PH.findall(tmpl)
    name_loc, addr_loc = PROFILES[profile]
    ents = {}
    for k in keys:
        m = PERSON_KEYS.match(k)
        if m:
            idx = m.group(2) or "1"
            ents.setdefault(idx, set()).add(m.group(1) + (m.group(3) or ""))
    entity = {}
    ent_loc = {}
    for idx, parts in sorted(ents.items()):
        loc = name_loc
        if lang == "en" and idx != "1" and rnd.random() < 0.5:
            loc = PROFILES[rnd.choice(sorted(PROFILES))][0]  # international cast in English text
        need = bool(parts & {"first", "last", "first_lc"})
        entity[idx] = make_entity(loc, rnd, need)
        ent_loc[idx] = loc
    addrs, addr_forms = {}, []
    out, spans, span_locs, pos = [], [], [], 0
    n = 0
    for m in PH.finditer(tmpl):
        lit = tmpl[pos : m.start()]
        out.append(lit)
        n += len(lit)
        pos = m.end()
        k = m.group(1)
        pm = PERSON_KEYS.match(k)
        if pm:
            kind, idx = pm.group(1) + (pm.group(3) or ""), pm.group(2) or "1"
            e = entity[idx]
            if kind in ("person", "tperson"):
                val = e["full"]
            elif kind == "first":
                val = e["first"]
            elif kind == "first_lc":
                val = e["first"].lower()
            else:
                val = e["last"]
            if kind == "tperson" and e["prefix"]:
                out.append(e["prefix"] + " ")
                n += len(e["prefix"]) + 1
            spans.append({"type": "person", "start": n, "end": n + len(val)})
            span_locs.append(ent_loc[idx])
            out.append(val)
            n += len(val)
            if kind in ("person", "tperson") and e["suffix"]:
                out.append(" " + e["suffix"])
                n += len(e["suffix"]) + 1
        elif k.startswith("address"):
            if k not in addrs:
                addrs[k] = make_address(addr_loc, rnd)
                addr_forms.append(addrs[k][1])
            val = addrs[k][0]
            spans.append({"type": "address", "start": n, "end": n + len(val)})
            span_locs.append(addr_loc)
            out.append(val)
            n += len(val)
        elif k == "n3":
            v = str(rnd.randint(100, 999))
            out.append(v)
            n += len(v)
        elif k == "n5":
            v = str(rnd.randint(10000, 99999))
            out.append(v)
            n += len(v)
        else:
            raise KeyError(k)
    out.append(tmpl[pos:])
    text = "".join(out)
    return text, spans, span_locs, addr_forms, sorted(set(ent_loc.values()))


def main():
    rnd = random.Random(SEED)
    Faker.seed(SEED)
    order = [i for i in range(len(FRAMES)) for _ in range(N_PER_FRAME)]
    rnd.shuffle(order)
    docs = []
    for j, fi in enumerate(order):
        frame = FRAMES[fi]
        lang, genre, tmpl = frame
        needs_addr = "{address" in tmpl
        cands = [p for p in LANG_PROFILES[lang] if PROFILES[p][1] or not needs_addr]
        # English frames: weight locales that have no native-language frames x3, so they are not starved
        weights = [
            3
            if (lang == "en" and not any(p in v for k, v in LANG_PROFILES.items() if k != "en"))
            else 1
            for p in cands
        ]
        if (
            lang == "en" and not needs_addr
        ):  # person-only frames: favour the name-only profiles (ja_JP, NG, GH...)
            weights = [w * 3 if PROFILES[p][1] is None else w for w, p in zip(weights, cands)]
        profile = rnd.choices(cands, weights=weights)[0]
        text, spans, span_locs, addr_forms, name_locs = render(frame, profile, rnd)
        for s in spans:
            v = text[s["start"] : s["end"]]
            assert v and v == v.strip(), (j, v)
        ss = sorted(spans, key=lambda s: s["start"])
        for a, b in zip(ss, ss[1:]):
            assert a["end"] <= b["start"], (j, a, b)
        docs.append(
            {
                "id": f"f{j + 1:04d}",
                "lang": lang,
                "genre": genre,
                "locale": profile,
                "name_locales": name_locs,
                "address_locale": PROFILES[profile][1] if needs_addr else None,
                "frame": fi + 1,
                "address_forms": addr_forms,
                "text": text,
                "spans": spans,
                "span_locales": span_locs,
            }
        )
    with open(OUT, "w", encoding="utf-8") as fh:
        for d in docs:
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    print(len(docs), "documents written to", OUT, "| Faker", faker.VERSION)


if __name__ == "__main__":
    main()
