import { describe, expect, it } from "vitest";

import { TOKEN_SCOPES } from "@/lib/token-scopes";

import { SCOPE_AREAS, inPickerOrder } from "./scopes";

describe("SCOPE_AREAS", () => {
  it("offers every scope of the contract once, as a read or a write of its area", () => {
    const offered = SCOPE_AREAS.flatMap((area) => [area.read, area.write]).flatMap((c) => (c ? [c.scope] : []));
    expect([...offered].sort()).toEqual(TOKEN_SCOPES);
    for (const area of SCOPE_AREAS) {
      if (area.read) expect(area.read.scope).toMatch(/:read$/);
      if (area.write) expect(area.write.scope).toMatch(/:write$/);
    }
  });
});

describe("inPickerOrder", () => {
  it("orders scopes area by area, read first, and drops repeats", () => {
    expect(inPickerOrder(["usage:read", "account:write", "account:read", "usage:read"])).toEqual([
      "account:read",
      "account:write",
      "usage:read",
    ]);
  });
});
