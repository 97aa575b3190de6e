import { describe, expect, it } from "vitest";

import { apiBaseUrl } from "./config";

describe("apiBaseUrl", () => {
  it("takes the run-time origin from /config.js over the build-time one", () => {
    expect(apiBaseUrl("https://api.console.example.com/", "https://old.example.com")).toBe(
      "https://api.console.example.com",
    );
  });

  it("keeps an empty run-time value: the SPA's own origin", () => {
    expect(apiBaseUrl("", "https://old.example.com")).toBe("");
  });

  it("falls back to the build-time value when /config.js gives none", () => {
    expect(apiBaseUrl(undefined, "https://api.example.com//")).toBe("https://api.example.com");
    expect(apiBaseUrl(42, "")).toBe("");
  });
});
