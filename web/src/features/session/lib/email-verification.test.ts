import { describe, expect, it } from "vitest";

import {
  CODE_REQUIRED,
  CODE_SHAPE,
  bannerText,
  codeProblem,
  normalizeCode,
  resentText,
} from "./email-verification";
import { showsVerificationBanner } from "./verification-banner";

describe("the email verification banner", () => {
  it("shows while the address is unverified, and only then", () => {
    expect(showsVerificationBanner({ email: "a@b.dev", emailVerified: false })).toBe(true);
    expect(showsVerificationBanner({ email: "a@b.dev", emailVerified: true })).toBe(false);
    expect(showsVerificationBanner(undefined)).toBe(false);
  });

  it("names the address and what waits for it", () => {
    const text = bannerText("grace@navy-labs.com");
    expect(text).toContain("grace@navy-labs.com");
    expect(text).toContain("invite users, add or verify domains, or change single sign-on");
  });

  it("says where a resent code went, Cognito's masked address first", () => {
    expect(resentText("grace@navy-labs.com", "g***@n***")).toBe(
      "We sent a new code to g***@n***. It replaces the previous one.",
    );
    expect(resentText("grace@navy-labs.com", null)).toContain("grace@navy-labs.com");
  });
});

describe("the code form", () => {
  it("needs a code", () => {
    expect(codeProblem("")).toBe(CODE_REQUIRED);
    expect(codeProblem("   ")).toBe(CODE_REQUIRED);
  });

  it("takes the 6 digits, with the spaces people paste", () => {
    expect(codeProblem("123456")).toBeNull();
    expect(codeProblem(" 123 456 ")).toBeNull();
    expect(normalizeCode(" 123 456 ")).toBe("123456");
  });

  it("refuses anything else before asking the API", () => {
    expect(codeProblem("12345")).toBe(CODE_SHAPE);
    expect(codeProblem("1234567")).toBe(CODE_SHAPE);
    expect(codeProblem("12a456")).toBe(CODE_SHAPE);
  });
});
