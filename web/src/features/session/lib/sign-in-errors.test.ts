import { describe, expect, it } from "vitest";

import { ApiError } from "@/api";

import { isPasswordExpired } from "./sign-in-errors";

const refused = (code: string, message: string) =>
  new ApiError(400, "Bad Request", { code, message }, false);

describe("isPasswordExpired", () => {
  it("offers the reset flow for a password an administrator reset", () => {
    expect(isPasswordExpired(refused("PasswordResetRequiredException", "Password reset required"))).toBe(true);
  });
  it("offers it for an expired temporary password", () => {
    const expired = "Temporary password has expired and must be reset by an administrator.";
    expect(isPasswordExpired(refused("NotAuthorizedException", expired))).toBe(true);
  });
  it("does not for a wrong password or other failures", () => {
    expect(isPasswordExpired(refused("NotAuthorizedException", "Incorrect username or password."))).toBe(false);
    expect(isPasswordExpired(new Error("network"))).toBe(false);
  });
});
