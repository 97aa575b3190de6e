import { describe, expect, it } from "vitest";

import { ACTION_GROUPS, ALL_ACTIONS, actionWords, isAuditAction } from "./actions";

describe("audit actions in plain words", () => {
  it("says what was done", () => {
    expect(actionWords("user.invited")).toBe("Invited a user");
    expect(actionWords("plan.units_changed")).toBe("Changed the plan");
    expect(actionWords("sign_in.failed")).toBe("Failed to sign in");
  });

  it("offers every action of the contract once in the filter's groups", () => {
    const grouped = ACTION_GROUPS.flatMap((group) => group.actions);
    expect(new Set(grouped).size).toBe(grouped.length);
    expect([...grouped].sort()).toEqual([...ALL_ACTIONS].sort());
    expect(ALL_ACTIONS).toHaveLength(32);
  });

  it("knows the contract's actions only", () => {
    expect(isAuditAction("api_key.rolled")).toBe(true);
    expect(isAuditAction("user.hacked")).toBe(false);
    expect(isAuditAction("constructor")).toBe(false);
  });
});
