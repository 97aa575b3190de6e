import { describe, expect, it } from "vitest";

import { type LoginState, initialLoginState, loginReducer } from "./login-machine";

describe("login modes (SPEC 4)", () => {
  it("starts in login mode with no temporary password", () => {
    expect(initialLoginState).toEqual({ mode: "login", username: "", tempPassword: "", challengeSession: null });
  });

  it("moves from login to forgot-password, carrying the typed email", () => {
    const next = loginReducer(initialLoginState, { type: "forgotPassword", username: "a@b.co" });
    expect(next).toMatchObject({ mode: "forgot-password", username: "a@b.co" });
  });

  it("moves from forgot-password to complete-forgot-password once the code is sent", () => {
    const forgot = loginReducer(initialLoginState, { type: "forgotPassword" });
    expect(loginReducer(forgot, { type: "resetCodeSent", username: "a@b.co" }).mode).toBe(
      "complete-forgot-password",
    );
    // ...but not from login directly
    expect(loginReducer(initialLoginState, { type: "resetCodeSent", username: "a@b.co" })).toBe(initialLoginState);
  });

  it("keeps the temporary password on a new-password challenge and clears it on success", () => {
    const challenged = loginReducer(initialLoginState, {
      type: "newPasswordRequired",
      username: "a@b.co",
      tempPassword: "Temp#1234",
      session: "sess",
    });
    expect(challenged).toEqual<LoginState>({
      mode: "new-password-required",
      username: "a@b.co",
      tempPassword: "Temp#1234",
      challengeSession: "sess",
    });
    expect(loginReducer(challenged, { type: "passwordChanged" })).toEqual(initialLoginState);
  });

  it("goes back to login keeping the email but dropping the temporary password", () => {
    const challenged = loginReducer(initialLoginState, {
      type: "newPasswordRequired",
      username: "a@b.co",
      tempPassword: "Temp#1234",
      session: "sess",
    });
    expect(loginReducer(challenged, { type: "backToLogin" })).toEqual({
      ...initialLoginState,
      username: "a@b.co",
    });
  });

  it("asks for the two-step code after the password or a reset, keeping the password", () => {
    const asked = loginReducer(initialLoginState, {
      type: "twoStepCodeRequired",
      username: "a@b.co",
      password: "Pass#12345678",
      session: "sess",
    });
    expect(asked).toEqual<LoginState>({
      mode: "two-step-code",
      username: "a@b.co",
      tempPassword: "Pass#12345678",
      challengeSession: "sess",
    });
    const reset = { ...initialLoginState, mode: "complete-forgot-password" as const };
    expect(
      loginReducer(reset, { type: "twoStepCodeRequired", username: "a", password: "p", session: "s" }).mode,
    ).toBe("two-step-code");
    const newPassword = { ...initialLoginState, mode: "new-password-required" as const };
    expect(
      loginReducer(newPassword, { type: "twoStepCodeRequired", username: "a", password: "p", session: "s" }),
    ).toBe(newPassword);
  });

  it("goes to the set-up from any mode, dropping the password", () => {
    const asked = { mode: "two-step-code" as const, username: "a@b.co", tempPassword: "p", challengeSession: "s" };
    expect(loginReducer(asked, { type: "twoStepSetupRequired", username: "a@b.co" })).toEqual<LoginState>({
      mode: "two-step-setup",
      username: "a@b.co",
      tempPassword: "",
      challengeSession: null,
    });
  });
});
