import { describe, expect, it } from "vitest";

import { emailDomain } from "@/lib/email";

import { AUTH_TYPE_TOOLTIP, GMAIL_TOOLTIP, googleSsoBlockedReason } from "./sso";

describe("googleSsoBlockedReason", () => {
  it("allows a Google SSO user of a company domain", () => {
    expect(googleSsoBlockedReason({ email: "ada@acme.dev", authType: "Google SSO" })).toBeNull();
  });
  it("blocks Gmail addresses first, whatever the auth type", () => {
    expect(googleSsoBlockedReason({ email: "ada@gmail.com", authType: "Google SSO" })).toBe(
      GMAIL_TOOLTIP,
    );
    expect(googleSsoBlockedReason({ email: "ada@GoogleMail.com", authType: "Email" })).toBe(
      GMAIL_TOOLTIP,
    );
  });
  it("blocks users who did not sign in with Google", () => {
    expect(googleSsoBlockedReason({ email: "ada@acme.dev", authType: "Email" })).toBe(
      AUTH_TYPE_TOOLTIP,
    );
    expect(googleSsoBlockedReason({ email: "ada@acme.dev", authType: "GitHub" })).toBe(
      AUTH_TYPE_TOOLTIP,
    );
  });
});

describe("emailDomain", () => {
  it("lowercases the part after the last @", () => {
    expect(emailDomain("A@B@Example.COM")).toBe("example.com");
  });
});
