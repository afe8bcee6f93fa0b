"""The HTTP API: the app, its dependencies, request bodies and one router per capability."""
