"""Adapters: the outside world behind the domain's ports."""
