import { describe, expect, it } from "vitest";

import { isBusinessEmail, normalizeRegistration, validateRegistration } from "./registration-rules";
import { domainText, userCountText, welcomeText } from "./sso";

const valid = {
  firstName: "Ada",
  lastName: "Lovelace",
  emailAddress: "ada@analytical-engines.com",
  organizationName: "Engines",
  newPassword: "Difference-engine-1!",
};

describe("registration rules (SPEC 5)", () => {
  it("requires every field with 'Required'", () => {
    expect(
      validateRegistration({ firstName: " ", lastName: "", emailAddress: "", organizationName: "", newPassword: "" }),
    ).toEqual({
      firstName: "Required",
      lastName: "Required",
      emailAddress: "Required",
      organizationName: "Required",
      newPassword: "Required",
    });
    expect(validateRegistration(valid)).toEqual({});
  });

  it("wants a business email", () => {
    for (const email of ["not-an-email", "a@gmail.com", "a@yahoo.com", "a@hotmail.com", "a@mailinator.com", "a@x.mailinator.com"]) {
      expect(validateRegistration({ ...valid, emailAddress: email }).emailAddress).toBe(
        "Must be a valid business email address",
      );
    }
    expect(isBusinessEmail("  Ada@Analytical-Engines.COM ")).toBe(true);
  });

  it("wants 12+ characters with a number and a special character", () => {
    const message =
      "Password must be at least twelve characters long and contain at least one number and one special character";
    for (const password of ["Short-pass1", "no-digits-here!!", "NoSpecial12345"]) {
      expect(validateRegistration({ ...valid, newPassword: password }).newPassword).toBe(message);
    }
  });

  it("refuses a space in the password, as Cognito does", () => {
    expect(validateRegistration({ ...valid, newPassword: "Difference engine 1!" }).newPassword).toBe(
      "Password must not contain spaces",
    );
  });

  it("lowercases and trims the email and trims names", () => {
    expect(normalizeRegistration({ ...valid, firstName: " Ada ", emailAddress: " ADA@X.COM " })).toMatchObject({
      firstName: "Ada",
      emailAddress: "ada@x.com",
    });
  });
});

describe("OAuth landing texts (SPEC 2, 9)", () => {
  it("counts users", () => {
    expect(userCountText(1)).toBe("1 user(s)");
    expect(userCountText(10)).toBe("10 user(s)");
    expect(userCountText(11)).toBe("10+ users");
  });

  it("shows 'for {domain}' unless Gmail", () => {
    expect(domainText("acme.com")).toBe("for acme.com");
    expect(domainText("gmail.com")).toBe("");
  });

  it("welcomes with or without the name", () => {
    expect(welcomeText("Autostep", "Lin")).toBe("Welcome to Autostep, Lin!");
    expect(welcomeText("Autostep", "")).toBe("Welcome to Autostep!");
  });
});
