"""Repository tooling run by the Makefile (not part of the deployed API)."""
