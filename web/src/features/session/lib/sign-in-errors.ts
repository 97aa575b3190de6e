/**
 * A failed sign-in (SPEC 2 "Login screen", SPEC 8 "Sign-in"). The server already words every
 * SPEC 8 message (api/identity/cognito_errors.py); the screen only decides whether to offer the reset.
 */
import { ApiError } from "@/api";

/**
 * SPEC 2 "An 'expired password' prompt offers a link to the reset flow": Cognito reports a
 * password an administrator reset as PasswordResetRequiredException.
 *
 * An invitation's expired temporary password is InvitationExpired: the API refuses it before
 * asking Cognito (README "Roles and invitations"), and its message says to ask for the
 * invitation again. No reset is offered there: Cognito resets no password of a user who never
 * set one (that user is still in FORCE_CHANGE_PASSWORD).
 */
export function isPasswordExpired(error: unknown): boolean {
  return error instanceof ApiError && error.code === "PasswordResetRequiredException";
}
