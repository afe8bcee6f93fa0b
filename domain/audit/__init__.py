"""The tamper-evident audit chain, and what the rows outside it must agree with."""
