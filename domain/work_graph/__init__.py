"""Work graphs: several agent runs in dependency order."""
