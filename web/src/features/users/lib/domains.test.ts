import { describe, expect, it } from "vitest";

import { hasVerifiedDomain, lastCheckLabel } from "./domains";

describe("lastCheckLabel", () => {
  const now = new Date("2026-11-23T14:30:00Z");
  it("says when a domain was never checked", () => {
    expect(lastCheckLabel(null, now)).toBe("Never checked");
  });
  it("counts minutes within the hour", () => {
    expect(lastCheckLabel("2026-11-23T14:29:40Z", now)).toBe("Checked just now");
    expect(lastCheckLabel("2026-11-23T14:29:00Z", now)).toBe("Checked 1 minute ago");
    expect(lastCheckLabel("2026-11-23T13:45:00Z", now)).toBe("Checked 45 minutes ago");
  });
  it("gives the date and UTC time after that", () => {
    expect(lastCheckLabel("2026-11-22T09:05:00Z", now)).toBe("Checked Nov 22, 2026, 09:05 UTC");
  });
});

describe("hasVerifiedDomain", () => {
  it("is true only with a Verified domain", () => {
    expect(hasVerifiedDomain([])).toBe(false);
    expect(hasVerifiedDomain([{ state: "Pending" }, { state: "Lost" }, { state: "Failed" }])).toBe(false);
    expect(hasVerifiedDomain([{ state: "Failed" }, { state: "Verified" }])).toBe(true);
  });
});
