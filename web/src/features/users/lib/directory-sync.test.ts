import { describe, expect, it } from "vitest";

import { OWNER_GROUP_REASON, groupRoleReason, tokenLimitReason } from "./directory-sync";

describe("tokenLimitReason (README 'Directory sync (SCIM)')", () => {
  it("allows a token below the account's most", () => {
    expect(tokenLimitReason([{ createdBy: "Ada" }, { createdBy: "Grace" }], 3)).toBeNull();
  });

  it("says so at the most", () => {
    expect(tokenLimitReason([{ createdBy: "Ada" }, { createdBy: "Ada" }, { createdBy: "Grace" }], 3)).toBe(
      "An account can have at most 3 SCIM tokens. Revoke one you no longer use first.",
    );
  });

  it("does not count a token whose creator was removed: it works no more", () => {
    expect(tokenLimitReason([{ createdBy: null }, { createdBy: "Ada" }, { createdBy: "Grace" }], 3)).toBeNull();
  });
});

describe("groupRoleReason", () => {
  it("keeps a group mapped to Owner an Owner's", () => {
    expect(groupRoleReason("Owner", false)).toBe(OWNER_GROUP_REASON);
    expect(groupRoleReason("Owner", true)).toBeNull();
  });

  it("lets an Admin change any other group", () => {
    expect(groupRoleReason("Admin", false)).toBeNull();
    expect(groupRoleReason(null, false)).toBeNull();
  });
});
