import { describe, expect, it } from "vitest";

import {
  MESSAGES,
  normalizeEmail,
  validateAccountName,
  validateCompleteForgotPassword,
  validateForgotPassword,
  validateLogin,
  validateNewPassword,
  validatePasswordChange,
} from "./validation";

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
    expect(validateNewPassword({ password: "x" })?.message).toBe(MESSAGES.passwordRule);
  });
});

describe("password change (SPEC 5)", () => {
  const strong = "Strong-pass-123";
  it("checks in order: new, confirmation, match, strength", () => {
    expect(validatePasswordChange({ password: "", confirmPassword: "" })?.message).toBe("Enter a new password");
    expect(validatePasswordChange({ password: strong, confirmPassword: "" })?.message).toBe(
      "You must confirm your password",
    );
    expect(validatePasswordChange({ password: strong, confirmPassword: "other" })?.message).toBe(
      "New password and confirm password must match",
    );
    expect(validatePasswordChange({ password: "weakpassword", confirmPassword: "weakpassword" })?.message).toBe(
      MESSAGES.passwordRule,
    );
    expect(validatePasswordChange({ password: strong, confirmPassword: strong })).toBeNull();
  });

  it("refuses white space in the new password, as Cognito does", () => {
    for (const password of ["Strong pass-123", "Strong-pass-123\t"]) {
      expect(validatePasswordChange({ password, confirmPassword: password })?.message).toBe(
        "Password must not contain spaces",
      );
    }
    expect(validateNewPassword({ password: "Strong pass-123" })?.message).toBe(MESSAGES.passwordNoSpaces);
  });

  it("complete-forgot-password checks email, then code, then the password", () => {
    const base = { email: "a@b.co", code: "123", password: strong, confirmPassword: strong };
    expect(validateCompleteForgotPassword({ ...base, email: " ", code: "" })?.message).toBe("Email address is required");
    expect(validateCompleteForgotPassword({ ...base, code: " " })?.message).toBe("Verification code is required");
    expect(validateCompleteForgotPassword({ ...base, password: "" })?.message).toBe("Enter a new password");
    expect(validateCompleteForgotPassword(base)).toBeNull();
  });

  it("new-password screen: required, then the rules", () => {
    expect(validateNewPassword({ password: "short1!" })?.message).toBe(MESSAGES.passwordRule);
    expect(validateNewPassword({ password: strong })).toBeNull();
  });

  it("OAuth account name must not be empty", () => {
    expect(validateAccountName("   ")).toBe("Account name must not be empty");
    expect(validateAccountName(" Acme ")).toBeNull();
  });
});
