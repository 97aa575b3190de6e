/**
 * Validation of the login screen's forms (SPEC 5 "Login", "Password change", "Other reset
 * screens"). Each validator returns the first problem as `{ field, message }`, or null.
 */

export interface FieldError<F extends string = string> {
  field: F;
  message: string;
}

export const MESSAGES = {
  emailRequired: "Email address is required",
  passwordRequired: "Password is required",
  newPasswordRequired: "A new password is required",
} as const;

/** SPEC 5: "The email is lowercased and trimmed before sign-in." */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export interface LoginInput {
  email: string;
  password: string;
}

export function validateLogin(input: LoginInput): FieldError<keyof LoginInput> | null {
  if (normalizeEmail(input.email) === "") return { field: "email", message: MESSAGES.emailRequired };
  if (input.password === "") return { field: "password", message: MESSAGES.passwordRequired };
  return null;
}

export function validateForgotPassword(input: { email: string }): FieldError<"email"> | null {
  if (normalizeEmail(input.email) === "") return { field: "email", message: MESSAGES.emailRequired };
  return null;
}

// TODO(issue 3): the password rules of SPEC 5 "Password change" ('Enter a new password',
// 'You must confirm your password', 'New password and confirm password must match') join
// here with the complete-forgot-password form.
export function validateNewPassword(input: { password: string }): FieldError<"password"> | null {
  if (input.password === "") return { field: "password", message: MESSAGES.newPasswordRequired };
  return null;
}
