"""The web console: server-rendered pages over the same use cases as the API and the
command line. Nothing is decided in the browser; every page reads as its signed-in person
may read, and every form goes through the front door like an API request."""
