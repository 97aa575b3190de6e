/** What the login mode shows for a failed sign-in (SPEC 2 "Login screen", SPEC 8 "Sign-in"). */
import { ApiError, errorMessage } from "@/api";

/** SPEC 8 "Sign-in": the server names the provider's error in `code`. */
export function signInErrorMessage(error: unknown): string {
  if (error instanceof ApiError && error.code === "UserNotConfirmedException") {
    return "This user must sign in with Google";
  }
  return errorMessage(error);
}

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
