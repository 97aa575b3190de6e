import { describe, expect, it } from "vitest";

import { normalizeEmail, validateForgotPassword, validateLogin, validateNewPassword } from "./validation";

describe("login validation (SPEC 5)", () => {
  it("requires the email: 'Email address is required'", () => {
    expect(validateLogin({ email: "", password: "secret" })).toEqual({
      field: "email",
      message: "Email address is required",
    });
  });

  it("treats a blank email as empty", () => {
    expect(validateLogin({ email: "   ", password: "secret" })?.message).toBe("Email address is required");
  });

  it("requires the password: 'Password is required'", () => {
    expect(validateLogin({ email: "a@b.co", password: "" })).toEqual({
      field: "password",
      message: "Password is required",
    });
  });

  it("reports the email first when both are empty", () => {
    expect(validateLogin({ email: "", password: "" })?.message).toBe("Email address is required");
  });

  it("accepts a filled form", () => {
    expect(validateLogin({ email: "a@b.co", password: " " })).toBeNull();
  });

  it("lowercases and trims the email before sign-in", () => {
    expect(normalizeEmail("  Jane.Doe@Example.COM \t")).toBe("jane.doe@example.com");
  });
});

describe("reset screens (SPEC 5)", () => {
  it("forgot-password requires the email", () => {
    expect(validateForgotPassword({ email: " " })?.message).toBe("Email address is required");
    expect(validateForgotPassword({ email: "a@b.co" })).toBeNull();
  });

  it("new-password requires a password", () => {
    expect(validateNewPassword({ password: "" })?.message).toBe("A new password is required");
    expect(validateNewPassword({ password: "x" })).toBeNull();
  });
});
