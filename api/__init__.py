"""The API (FastAPI) and the ``verletica`` command line, thin over :mod:`api.services`."""
