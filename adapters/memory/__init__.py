"""Organizational memory outside the domain: embedders and (as they arrive) the stores
behind MemoryBank."""
