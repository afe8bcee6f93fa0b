"""Pure domain of Verletica: contracts, broker stages, parser, audit chain, ports.

Nothing in this package performs I/O or imports an infrastructure library; the
import-linter contracts in ``pyproject.toml`` keep it that way.
"""
