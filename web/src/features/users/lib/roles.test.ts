import { describe, expect, it } from "vitest";

import { awaitsSsoSignIn, invitationLabel } from "./roles";

describe("invitationLabel (README 'Roles and invitations')", () => {
  const now = new Date("2026-11-26T10:00:00Z");
  const expires = "2026-12-01T23:30:00Z";

  it("gives the invite date of a Pending invitation, in UTC", () => {
    expect(
      invitationLabel({ status: "Pending", invitedAt: "2026-11-24T23:30:00Z", invitationExpiresAt: expires }, now),
    ).toBe("Invited Nov 24");
  });

  it("adds the year for an Expired one of another year", () => {
    expect(
      invitationLabel({ status: "Expired", invitedAt: "2025-12-28T09:00:00Z", invitationExpiresAt: expires }, now),
    ).toBe("Invited Dec 28, 2025");
  });

  it("is null for an Active user, also one invited before", () => {
    expect(
      invitationLabel({ status: "Active", invitedAt: "2026-11-20T09:00:00Z", invitationExpiresAt: null }, now),
    ).toBeNull();
  });

  it("says Provisioned for a directory's user waiting for a single sign-on (README 'Directory sync (SCIM)')", () => {
    const provisioned = { status: "Pending", invitedAt: "2026-11-25T08:00:00Z", invitationExpiresAt: null } as const;
    expect(invitationLabel(provisioned, now)).toBe("Provisioned Nov 25");
    expect(awaitsSsoSignIn(provisioned)).toBe(true);
    expect(awaitsSsoSignIn({ status: "Pending", invitationExpiresAt: expires })).toBe(false);
    expect(awaitsSsoSignIn({ status: "Active", invitationExpiresAt: null })).toBe(false);
  });
});
