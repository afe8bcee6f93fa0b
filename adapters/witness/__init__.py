"""The witness process (a C2SP tlog-witness of our own) and the anchor's client of it."""
