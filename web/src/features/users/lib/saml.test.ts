import { describe, expect, it } from "vitest";

import {
  SAML_AUTH_TYPE_TOOLTIP,
  SAML_NO_VERIFIED_DOMAIN_TOOLTIP,
  type SamlConnection,
  certificateWarning,
  confirmLinkingText,
  linkingSummary,
  samlBlockedReason,
  testSummary,
} from "./saml";

const connection = (expiresAt: string, soon: boolean): SamlConnection => ({
  providerName: "saml-0123",
  metadataUrl: null,
  idpEntityId: "https://idp.example/metadata",
  ssoUrl: "https://idp.example/sso",
  certificateExpiresAt: expiresAt,
  certificateExpiresSoon: soon,
  domains: ["acme.dev"],
  identifierNotices: [],
  metadataCheckedAt: "2026-11-20T10:00:00Z",
  metadataError: null,
  identifiersError: null,
  connectedAt: "2026-11-20T10:00:00Z",
  lastTest: null,
  linkingConfirmedAt: "2026-11-20T10:00:00Z",
  linkingConfirmedBy: "Olive Owner <olive@acme.dev>",
  signsRequests: false,
  signingCertificate: null,
});

describe("who may choose SAML", () => {
  it("waits for a verified domain", () => {
    expect(samlBlockedReason({ authType: "Email" }, [], false)).toBe(SAML_NO_VERIFIED_DOMAIN_TOOLTIP);
  });

  it("lets an Admin set it up before anyone signed in through it", () => {
    expect(samlBlockedReason({ authType: "Email" }, ["acme.dev"], false)).toBeNull();
  });

  it("lets only a user of the connection require it", () => {
    expect(samlBlockedReason({ authType: "Email" }, ["acme.dev"], true)).toBe(SAML_AUTH_TYPE_TOOLTIP);
    expect(samlBlockedReason({ authType: "Google SSO" }, ["acme.dev"], true)).toBe(SAML_AUTH_TYPE_TOOLTIP);
    expect(samlBlockedReason({ authType: "SAML SSO" }, ["acme.dev"], true)).toBeNull();
  });
});

describe("the certificate's expiry", () => {
  const now = new Date("2026-11-26T12:00:00Z");

  it("is quiet until 30 days before", () => {
    expect(certificateWarning(connection("2027-06-01T00:00:00Z", false), now)).toBeNull();
  });

  it("warns with the day it expires", () => {
    expect(certificateWarning(connection("2026-12-10T08:00:00Z", true), now)).toBe(
      "The signing certificate of your SAML identity provider expires on Dec 10, 2026. Add a new certificate at the identity provider and update the metadata under Security before then, or sign-in with SSO will stop.",
    );
  });

  it("says when it has expired", () => {
    expect(certificateWarning(connection("2026-11-20T08:00:00Z", true), now)).toMatch(
      /^The signing certificate of your SAML identity provider expired on Nov 20, 2026: sign-in with SSO fails/,
    );
  });
});

describe("the test sign-in's result", () => {
  it("names who signed in", () => {
    expect(
      testSummary({ testedAt: "", email: "kat@acme.dev", firstName: "Kat", lastName: "Johnson", problem: null }),
    ).toBe("Signed in as kat@acme.dev (Kat Johnson): the connection works.");
  });

  it("names what was wrong", () => {
    expect(
      testSummary({ testedAt: "", email: null, firstName: null, lastName: null, problem: "No email was sent." }),
    ).toBe("No email was sent.");
  });
});

describe("whether the connection links existing users", () => {
  const confirmed = connection("2036-01-01T00:00:00Z", false);

  it("says who confirmed it", () => {
    expect(linkingSummary(confirmed)).toMatch(
      /^Existing users link at their first sign-in \(confirmed by Olive Owner <olive@acme.dev> on .+\)\.$/,
    );
  });

  it("waits for an Owner while unconfirmed", () => {
    const legacy = { ...confirmed, linkingConfirmedAt: null, linkingConfirmedBy: null };
    expect(linkingSummary(legacy)).toBe(
      "Existing users cannot sign in through it yet: it signs in only people new to this account, as Members, until an Owner confirms it.",
    );
  });

  it("tells the Owner what confirming allows", () => {
    expect(confirmLinkingText(confirmed)).toBe(
      "Whoever runs https://idp.example/metadata will be able to sign in as any user of this account at acme.dev, Owners included: the first time someone signs in through it, their existing user is linked to it. Confirm only if your company runs this identity provider.",
    );
  });
});
