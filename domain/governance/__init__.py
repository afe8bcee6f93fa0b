"""Governance: what the broker decides and what a decision does.

- :mod:`values` holds the values the broker and its ports share (the snapshot it reads,
  the effects a decision has on stored state, the broker's modes);
- :mod:`broker` holds the ordered, pure stages from an intent to a decision;
- :mod:`review` holds the ladder a human's approve or deny climbs before it counts;
- :mod:`approvals` holds the proof the API signs a human's decision with, that the
  ladder verifies first.

Nothing here does I/O: the use cases in :mod:`usecases.governance` load a snapshot
through a unit of work, call these functions, and record what they return.
"""
