"""Two-step sign-in (README "Two-step sign-in"): a password user's authenticator app and
recovery codes, an account's requirement, and an Owner's or Admin's reset."""
