import { describe, expect, it } from "vitest";

import { loginHref, safeNext } from "./login-redirect";

describe("route guard redirect (SPEC 2)", () => {
  it("sends the attempted path as next", () => {
    expect(loginHref(new URL("http://h/billing"))).toBe("/login?next=%2Fbilling");
  });

  it("carries the extension query parameter when present", () => {
    expect(loginHref(new URL("http://h/account?extension=abc"))).toBe("/login?next=%2Faccount&extension=abc");
  });

  it("keeps the attempted path's other query parameters in next", () => {
    expect(loginHref({ pathname: "/users", search: "?tab=2" })).toBe("/login?next=%2Fusers%3Ftab%3D2");
  });

  it("leaves out next for /, the default destination", () => {
    expect(loginHref(new URL("http://h/"))).toBe("/login");
    expect(loginHref(new URL("http://h/?extension=x"))).toBe("/login?extension=x");
  });

  it("accepts only same-site paths as next", () => {
    expect(safeNext("/account")).toBe("/account");
    expect(safeNext("//evil.example/x")).toBeNull();
    expect(safeNext("https://evil.example")).toBeNull();
    expect(safeNext("/\\evil.example")).toBeNull();
    expect(safeNext("")).toBeNull();
    expect(safeNext(null)).toBeNull();
  });
});
