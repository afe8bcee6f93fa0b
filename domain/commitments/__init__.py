"""Commitments from documents: what the extractor is asked, and what it may answer."""
