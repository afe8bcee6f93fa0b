"""Time: the heartbeat's checks (and, as they arrive, learning validators and offer
merging). Pure: no I/O, no clocks of its own; ``now`` is always given."""
