"""The HTTP API's routes, one router per area; each route calls one use case."""
