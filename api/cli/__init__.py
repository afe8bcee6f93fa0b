"""``verletica``: the command line, thin over the same use cases as the HTTP API."""
