"""Persona deliberation: personas propose claims in turn; a gate checks each."""
