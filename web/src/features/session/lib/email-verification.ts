/**
 * The email verification banner's rules (README "Security model", email ownership): what a
 * code must look like before it is sent, and what the banner says. Who sees it is
 * ./verification-banner.ts, the shell's part.
 */

export const CODE_REQUIRED = "Enter the code from the email.";
export const CODE_SHAPE = "The code is the 6 digits in the email.";

/** Why `code` cannot be sent yet, or null: Cognito's codes are 6 digits (spaces ignored). */
export function codeProblem(code: string): string | null {
  const digits = code.replace(/\s+/g, "");
  if (digits === "") return CODE_REQUIRED;
  if (!/^\d{6}$/.test(digits)) return CODE_SHAPE;
  return null;
}

/** The code as it is sent: without the spaces people paste with it. */
export function normalizeCode(code: string): string {
  return code.replace(/\s+/g, "");
}

/** The banner's text: where the code went and what waits for it. */
export function bannerText(email: string): string {
  return (
    `We sent a code to ${email}. Enter it to verify your address: until then you cannot ` +
    "invite users, add or verify domains, or change single sign-on."
  );
}

/** What the banner says after Resend; `destination` is Cognito's masked address, if given. */
export function resentText(email: string, destination: string | null | undefined): string {
  return `We sent a new code to ${destination || email}. It replaces the previous one.`;
}
