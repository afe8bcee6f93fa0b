"""Rich tables the command line and the demo print."""
