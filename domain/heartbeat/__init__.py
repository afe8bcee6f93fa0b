"""The heartbeat: pure checks of an organization's snapshot at a given ``now``."""
