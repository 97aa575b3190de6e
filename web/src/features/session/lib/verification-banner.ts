/**
 * Who sees the email verification banner (README "Security model", email ownership). Apart
 * from the banner's texts and code rules (./email-verification.ts): the shell asks this on
 * every signed-in route, and they load only with the banner (the first-load budget,
 * bench/bundle/measure.mjs).
 */

/** The session's user, as far as the banner needs it. */
export interface VerifyingUser {
  email: string;
  emailVerified: boolean;
}

/** The banner shows on every signed-in screen while the user's address is unverified. */
export function showsVerificationBanner(user: VerifyingUser | undefined): boolean {
  return user !== undefined && !user.emailVerified;
}
