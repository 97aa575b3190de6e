/**
 * Email domain rules shared by the features (SPEC 2 "OAuth landing": no 'for {domain}' for
 * Gmail; SPEC 5 "Other": the Google SSO option is disabled for Gmail addresses). The server
 * applies the same rules in api/kernel/emails.py.
 */

const GMAIL_DOMAINS: ReadonlySet<string> = new Set(["gmail.com", "googlemail.com"]);

/** The part after the last `@`, trimmed and lowercased. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf("@") + 1).trim().toLowerCase();
}

/** Personal Google accounts' domains. */
export function isGmailDomain(domain: string): boolean {
  return GMAIL_DOMAINS.has(domain.trim().toLowerCase());
}
