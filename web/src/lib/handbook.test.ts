import { describe, expect, it } from "vitest";

import { handbookPage } from "./handbook";

describe("handbookPage", () => {
  it("links the file in the repository while the documentation link is a GitHub repository", () => {
    expect(handbookPage("https://github.com/autostep/autostep", "integrators/access-tokens")).toBe(
      "https://github.com/autostep/autostep/blob/main/docs/integrators/access-tokens.md",
    );
  });

  it("links the built handbook's page otherwise", () => {
    expect(handbookPage("https://docs.autostep.dev/", "integrators/access-tokens")).toBe(
      "https://docs.autostep.dev/integrators/access-tokens/",
    );
  });
});
