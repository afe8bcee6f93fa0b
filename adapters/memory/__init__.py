"""Organizational memory outside the domain: the stores behind the MemoryBank (SQL
backends), the units it reads in, embedders, and the screen's models."""
