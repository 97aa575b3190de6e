/** Texts of the account choice after third-party sign-in (SPEC 2 "OAuth landing", 9). */
import { isGmailDomain } from "@/lib/email";

/** SPEC 9: '10+ users' above 10, else '{n} user(s)'. */
export function userCountText(count: number): string {
  return count > 10 ? "10+ users" : `${count} user(s)`;
}

/** SPEC 2: the domain is shown as 'for {domain}' unless it is a Gmail domain. */
export function domainText(domain: string): string {
  const d = domain.trim().toLowerCase();
  if (d === "" || isGmailDomain(d)) return "";
  return `for ${d}`;
}

/** SPEC 2: 'Welcome to {product}, {name}!' with the first name, or without it. */
export function welcomeText(product: string, firstName: string | null | undefined): string {
  const name = firstName?.trim();
  return name ? `Welcome to ${product}, ${name}!` : `Welcome to ${product}!`;
}

/** SPEC 4: only identities whose username starts with google_ look up accounts. */
export function isGoogleIdentity(username: string): boolean {
  return username.startsWith("google_");
}
