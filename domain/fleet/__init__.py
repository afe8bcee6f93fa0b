"""The fleet: the starter agents every organization gets, and the registry of versions."""
