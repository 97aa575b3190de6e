"""Passkeys (README "Passkeys"): a password user's own passkeys, registered at Cognito, named
and listed by the console."""
