"""The front door's proofs: OIDC bearer tokens and channel webhook signatures."""
