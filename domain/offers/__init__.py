"""Process offers: episodes of the same work merged into offers, kept as playbooks."""
