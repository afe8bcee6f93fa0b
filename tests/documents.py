"""Documents the extraction tests ingest; the replay fixtures in
``adapters/models/fixtures/commitments.json`` quote them by offset, so a change here
is a change there."""

from __future__ import annotations

ORBIT_AGREEMENT = (
    "Supply agreement, Project Orbit. "
    "The supplier will deliver the quarterly usage report by 31 January 2027. "
    "Fees under this agreement shall not exceed USD 12,000 in total. "
    "Either party may end the agreement on 60 days' written notice."
)
"""Three obligations: a delivery, a spend cap and a notice period."""

ORBIT_MISQUOTED = ORBIT_AGREEMENT
"""The same text, under a reference whose fixture quotes it at the wrong offsets."""

DOCUMENTS = {
    "orbit-supply-agreement": ORBIT_AGREEMENT,
    "orbit-misquoted": ORBIT_MISQUOTED,
}
"""Every document a committed extraction fixture answers for, by reference (with the
demo's, in :data:`api.local.demo_script.ATLAS_LETTER`)."""
