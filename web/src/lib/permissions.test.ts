import { describe, expect, it } from "vitest";

import {
  type Change,
  OWNER_CHANGES_OWNERS,
  type Role,
  canManageAccessTokens,
  canReadActivity,
  permissionsFor,
} from "./permissions";

const ADMIN_CHANGES: Change[] = [
  "renameAccount",
  "manageApiKeys",
  "changeUsageAlerts",
  "manageUsers",
  "changeSso",
];

describe("permissionsFor (README 'Roles and invitations', as api/principal/roles.py)", () => {
  it("lets an Owner change everything and manage everyone", () => {
    const owner = permissionsFor("Owner");
    for (const change of [...ADMIN_CHANGES, "changeBilling", "changeSaml"] as Change[]) {
      expect(owner.whyNot(change)).toBeNull();
    }
    for (const target of ["Owner", "Admin", "Member"] as Role[]) {
      expect(owner.whyNotManage(target)).toBeNull();
    }
    expect(owner.grantable).toEqual(["Owner", "Admin", "Member"]);
  });

  it("lets an Admin change all but billing and the SAML connection, and manage all but Owners", () => {
    const admin = permissionsFor("Admin");
    for (const change of ADMIN_CHANGES) expect(admin.whyNot(change)).toBeNull();
    expect(admin.whyNot("changeBilling")).toBe("Only Owners can change billing.");
    expect(admin.whyNot("changeSaml")).toBe("Only Owners can set up, change or require SAML single sign-on.");
    expect(admin.whyNotManage("Owner")).toBe(OWNER_CHANGES_OWNERS);
    expect(admin.whyNotManage("Admin")).toBeNull();
    expect(admin.whyNotManage("Member")).toBeNull();
    expect(admin.grantable).toEqual(["Admin", "Member"]);
  });

  it("lets a Member change nothing, each refusal naming the roles that may", () => {
    const member = permissionsFor("Member");
    expect(Object.fromEntries([...ADMIN_CHANGES, "changeBilling"].map((c) => [c, member.whyNot(c as Change)])))
      .toEqual({
        renameAccount: "Only Owners and Admins can rename the account.",
        manageApiKeys: "Only Owners and Admins can change API keys.",
        changeUsageAlerts: "Only Owners and Admins can change usage alerts.",
        manageUsers: "Only Owners and Admins can manage users.",
        changeSso: "Only Owners and Admins can change single sign-on.",
        changeBilling: "Only Owners can change billing.",
      });
    for (const target of ["Owner", "Admin", "Member"] as Role[]) {
      expect(member.whyNotManage(target)).toBe("Only Owners and Admins can manage users.");
    }
    expect(member.grantable).toEqual([]);
  });
});

describe("canReadActivity (the audit log: Owners and Admins)", () => {
  it.each([
    ["Owner", true],
    ["Admin", true],
    ["Member", false],
    [undefined, false],
  ] as const)("%s reads it: %s", (role, expected) => {
    expect(canReadActivity(role)).toBe(expected);
  });
});

describe("canManageAccessTokens (README 'Automation': Owners and Admins)", () => {
  it.each([
    ["Owner", true],
    ["Admin", true],
    ["Member", false],
    [undefined, false],
  ] as const)("%s manages them: %s", (role, expected) => {
    expect(canManageAccessTokens(role)).toBe(expected);
  });
});
