import { describe, expect, it } from "vitest";

import { countdown, lastUsedText } from "./api-keys";

const NOW = Date.parse("2026-11-23T12:00:00Z");

describe("lastUsedText", () => {
  it("words the time since the last use", () => {
    expect(lastUsedText(null, NOW)).toBe("Never used");
    expect(lastUsedText("2026-11-23T11:59:30Z", NOW)).toBe("Last used just now");
    expect(lastUsedText("2026-11-23T11:59:00Z", NOW)).toBe("Last used 1 minute ago");
    expect(lastUsedText("2026-11-23T11:05:00Z", NOW)).toBe("Last used 55 minutes ago");
    expect(lastUsedText("2026-11-23T10:00:00Z", NOW)).toBe("Last used 2 hours ago");
    expect(lastUsedText("2026-11-20T12:00:00Z", NOW)).toBe("Last used 3 days ago");
  });
});

describe("countdown", () => {
  it("shows the two largest units left", () => {
    expect(countdown("2026-11-30T11:00:00Z", NOW)).toBe("6d 23h");
    expect(countdown("2026-11-24T11:59:00Z", NOW)).toBe("23h 59m");
    expect(countdown("2026-11-23T12:59:59Z", NOW)).toBe("59m 59s");
    expect(countdown("2026-11-23T12:00:09Z", NOW)).toBe("9s");
    expect(countdown("2026-11-23T11:00:00Z", NOW)).toBe("0s");
  });
});
