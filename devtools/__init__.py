"""Tools for the project's own upkeep (pins, licences), run from a checkout; not shipped."""
