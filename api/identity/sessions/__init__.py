"""A person's sign-in sessions (README "Sessions"): started by every sign-in, seen and ended on
the Sessions page, ended everywhere by an Owner or Admin."""
