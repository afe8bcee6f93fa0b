"""Organizational memory in the domain: nodes, tagged spans and the release rule."""
