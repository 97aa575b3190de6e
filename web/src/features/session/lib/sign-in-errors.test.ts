import { describe, expect, it } from "vitest";

import { ApiError, type ErrorCode } from "@/api";

import { isPasswordExpired } from "./sign-in-errors";

const refused = (code: ErrorCode, message: string) =>
  new ApiError(400, "Bad Request", { code, message }, false);

describe("isPasswordExpired", () => {
  it("offers the reset flow for a password an administrator reset", () => {
    expect(isPasswordExpired(refused("PasswordResetRequiredException", "Password reset required"))).toBe(true);
  });
  it("does not for an expired invitation: a new invitation helps, a reset cannot", () => {
    const expired = "Your invitation has expired. Ask an Owner or Admin of your account to send it again.";
    expect(isPasswordExpired(refused("InvitationExpired", expired))).toBe(false);
  });
  it("does not for a wrong password or other failures, whatever the message says", () => {
    expect(isPasswordExpired(refused("NotAuthorizedException", "Incorrect username or password."))).toBe(false);
    const expired = "Temporary password has expired and must be reset by an administrator.";
    expect(isPasswordExpired(refused("NotAuthorizedException", expired))).toBe(false);
    expect(isPasswordExpired(new Error("network"))).toBe(false);
  });
});
