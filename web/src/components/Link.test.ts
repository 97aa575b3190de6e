import { describe, expect, it } from "vitest";

import { isActivePath } from "./Link";

describe("isActivePath", () => {
  it("is true on the link's own path and below it", () => {
    expect(isActivePath("/users", "/users")).toBe(true);
    expect(isActivePath("/users/42", "/users")).toBe(true);
    expect(isActivePath("/users/42", "/users/")).toBe(true);
  });

  it("ignores case, as react-router does without caseSensitive", () => {
    expect(isActivePath("/Users", "/users")).toBe(true);
  });

  it("is false on a path that only starts with the same letters", () => {
    expect(isActivePath("/users-archive", "/users")).toBe(false);
    expect(isActivePath("/account", "/activity")).toBe(false);
  });

  it("keeps '/' to the home page alone", () => {
    expect(isActivePath("/", "/")).toBe(true);
    expect(isActivePath("/account", "/")).toBe(false);
  });
});
