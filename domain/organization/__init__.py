"""The organization: its contracts (principals, charters, projects, staffing, barriers),
the rules of changing them, and who may read what."""
