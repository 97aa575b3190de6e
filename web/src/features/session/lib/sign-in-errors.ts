/**
 * A failed sign-in (SPEC 2 "Login screen", SPEC 8 "Sign-in"). The server already words every
 * SPEC 8 message (api/cognito_errors.py); the screen only decides whether to offer the reset.
 */
import { ApiError } from "@/api";

/**
 * SPEC 2 "An 'expired password' prompt offers a link to the reset flow": Cognito reports a
 * password an administrator reset as PasswordResetRequiredException, and an invitation's
 * expired temporary password as NotAuthorizedException 'Temporary password has expired...'.
 */
export function isPasswordExpired(error: unknown): boolean {
  if (!(error instanceof ApiError)) return false;
  return (
    error.code === "PasswordResetRequiredException" ||
    (error.code === "NotAuthorizedException" && /expired/i.test(error.message))
  );
}
