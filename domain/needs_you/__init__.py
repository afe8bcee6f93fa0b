"""The needs-you queue and the autonomy metrics, as pure functions.

Everything the humans must decide (held intents, commitments awaiting confirmation,
failed runs, and later findings, process offers and agent replies) becomes one
:class:`~domain.needs_you.items.QueueItem`, ranked most urgent first by
:func:`~domain.needs_you.items.rank`. :mod:`~domain.needs_you.chain` reads those facts
off the audit chain; :mod:`~domain.needs_you.metrics` measures how much work the fleet
did without a human.
"""
