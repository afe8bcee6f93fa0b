"""The laptop stack: ``verletica up``, the local OIDC issuer, the showcase and screenshots."""
