"""``verletica counterfactual``: a held or rejected intent beside what it would have done."""

from __future__ import annotations

from api.cli.common import As, console, sync


def counterfactual_of(intent_id: str, actor: As = "") -> None:
    """A held or rejected intent beside what it would have done without enforcement
    (replayed over the record: nothing written, nothing appended to the chain)."""
    from api.views.counterfactual import counterfactual_table
    from usecases import counterfactual

    found = sync(lambda s: counterfactual.counterfactual(s, intent_id, actor))
    console.print(counterfactual_table(found))
