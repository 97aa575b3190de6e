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
  enterNewPassword: "Enter a new password",
  confirmRequired: "You must confirm your password",
  mismatch: "New password and confirm password must match",
  codeRequired: "Verification code is required",
  required: "Required",
  businessEmail: "Must be a valid business email address",
  passwordRule:
    "Password must be at least twelve characters long and contain at least one number and one special character",
  accountNameRequired: "Account name must not be empty",
  passwordNoSpaces: "Password must not contain spaces",
} as const;

/** SPEC 5 / 9: at least 12 characters, with a digit and a special (non-alphanumeric) one. */
export function isStrongPassword(password: string): boolean {
  return password.length >= 12 && /\d/.test(password) && /[^A-Za-z0-9]/.test(password);
}

/**
 * What is wrong with a password being chosen, as the API says it: SPEC 5's rule, then white
 * space, which Cognito refuses in a new password (its pattern is `[\S]+`); null when fine.
 */
export function newPasswordProblem(password: string): string | null {
  if (!isStrongPassword(password)) return MESSAGES.passwordRule;
  if (/[ \t\n\v\f\r]/.test(password)) return MESSAGES.passwordNoSpaces;
  return null;
}

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

/** The screens that ask for an email alone: forgot-password, and 'Sign in with SSO'. */
export function validateEmailOnly(input: { email: string }): FieldError<"email"> | null {
  if (normalizeEmail(input.email) === "") return { field: "email", message: MESSAGES.emailRequired };
  return null;
}

export const validateForgotPassword = validateEmailOnly;

export interface PasswordChangeInput {
  password: string;
  confirmPassword: string;
}

/**
 * SPEC 5 "Password change": 'Enter a new password', 'You must confirm your password',
 * 'New password and confirm password must match', then the strength rule the server also
 * applies (the spec does not show one for these screens; the pool's policy is SPEC 9's).
 */
export function validatePasswordChange(
  input: PasswordChangeInput,
): FieldError<"password" | "confirmPassword"> | null {
  if (input.password === "") return { field: "password", message: MESSAGES.enterNewPassword };
  if (input.confirmPassword === "") return { field: "confirmPassword", message: MESSAGES.confirmRequired };
  if (input.password !== input.confirmPassword) return { field: "confirmPassword", message: MESSAGES.mismatch };
  const problem = newPasswordProblem(input.password);
  return problem ? { field: "password", message: problem } : null;
}

/** SPEC 5 "Other reset screens": email, then code, then the password rules. */
export function validateCompleteForgotPassword(
  input: { email: string; code: string } & PasswordChangeInput,
): FieldError<"email" | "code" | "password" | "confirmPassword"> | null {
  if (normalizeEmail(input.email) === "") return { field: "email", message: MESSAGES.emailRequired };
  if (input.code.trim() === "") return { field: "code", message: MESSAGES.codeRequired };
  return validatePasswordChange(input);
}

/** SPEC 5: 'A new password is required', then the password rules (confirmation = same value). */
export function validateNewPassword(input: { password: string }): FieldError<"password"> | null {
  if (input.password === "") return { field: "password", message: MESSAGES.newPasswordRequired };
  const problem = validatePasswordChange({ password: input.password, confirmPassword: input.password });
  return problem ? { field: "password", message: problem.message } : null;
}

/** SPEC 5 "Other": the OAuth account name is trimmed and must not be empty. */
export function validateAccountName(name: string): string | null {
  return name.trim() === "" ? MESSAGES.accountNameRequired : null;
}
