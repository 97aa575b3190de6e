import { describe, expect, it } from "vitest";

import { emailDomain } from "@/lib/email";

import {
  AUTH_TYPE_TOOLTIP,
  GMAIL_TOOLTIP,
  NO_VERIFIED_DOMAIN_TOOLTIP,
  googleSsoBlockedReason,
} from "./sso";

const VERIFIED = ["acme.dev"];

describe("googleSsoBlockedReason", () => {
  it("allows a Google SSO user of a company domain", () => {
    expect(
      googleSsoBlockedReason({ email: "ada@acme.dev", authType: "Google SSO" }, VERIFIED),
    ).toBeNull();
  });
  it("blocks Gmail addresses first, whatever the auth type", () => {
    expect(googleSsoBlockedReason({ email: "ada@gmail.com", authType: "Google SSO" }, VERIFIED)).toBe(
      GMAIL_TOOLTIP,
    );
    expect(googleSsoBlockedReason({ email: "ada@GoogleMail.com", authType: "Email" }, VERIFIED)).toBe(
      GMAIL_TOOLTIP,
    );
  });
  it("blocks users who did not sign in with Google", () => {
    expect(googleSsoBlockedReason({ email: "ada@acme.dev", authType: "Email" }, VERIFIED)).toBe(
      AUTH_TYPE_TOOLTIP,
    );
    expect(googleSsoBlockedReason({ email: "ada@acme.dev", authType: "GitHub" }, VERIFIED)).toBe(
      AUTH_TYPE_TOOLTIP,
    );
  });
});

describe("googleSsoBlockedReason without a verified domain", () => {
  it("blocks a Google SSO user until the account has verified a domain", () => {
    expect(googleSsoBlockedReason({ email: "ada@acme.dev", authType: "Google SSO" }, [])).toBe(
      NO_VERIFIED_DOMAIN_TOOLTIP,
    );
  });
  it("names the earlier reason first", () => {
    expect(googleSsoBlockedReason({ email: "ada@acme.dev", authType: "Email" }, [])).toBe(
      AUTH_TYPE_TOOLTIP,
    );
  });
});

describe("emailDomain", () => {
  it("lowercases the part after the last @", () => {
    expect(emailDomain("A@B@Example.COM")).toBe("example.com");
  });
});
