/**
 * The login screen's modes (SPEC 2 "Login screen", SPEC 4 "Login mode") as a reducer: SPEC's
 * four, and two-step sign-in's (README "Two-step sign-in"): the authenticator app's code
 * (or a recovery code) after the password, and the set-up a user must do before anything
 * else. State: mode, username, tempPassword (SPEC 3 "Login state"), plus the identity
 * provider's challenge session that the new-password or code answer must carry.
 *
 *   login ──forgotPassword──▶ forgot-password ──resetCodeSent──▶ complete-forgot-password
 *   login ──newPasswordRequired──▶ new-password-required (the temporary password is kept)
 *   login | complete-forgot-password ──twoStepCodeRequired──▶ two-step-code (the password
 *     is kept: a recovery code is sent with it)
 *   any ──twoStepSetupRequired──▶ two-step-setup (signed in; the password is cleared)
 *   any ──backToLogin / passwordChanged──▶ login (the temporary password is cleared)
 */

export type LoginMode =
  | "login"
  | "forgot-password"
  | "complete-forgot-password"
  | "new-password-required"
  | "two-step-code"
  | "two-step-setup";

export interface LoginState {
  mode: LoginMode;
  /** The email the user is signing in or resetting with. */
  username: string;
  /**
   * The temporary password of a new-password challenge, or the password of a sign-in that
   * waits for its two-step code; empty otherwise.
   */
  tempPassword: string;
  /** The identity provider's session of a pending new-password challenge. */
  challengeSession: string | null;
}

export type LoginEvent =
  | { type: "forgotPassword"; username?: string }
  | { type: "resetCodeSent"; username: string }
  | { type: "newPasswordRequired"; username: string; tempPassword: string; session: string }
  | { type: "twoStepCodeRequired"; username: string; password: string; session: string }
  | { type: "twoStepSetupRequired"; username: string }
  | { type: "backToLogin" }
  | { type: "passwordChanged" };

export const initialLoginState: LoginState = {
  mode: "login",
  username: "",
  tempPassword: "",
  challengeSession: null,
};

export function loginReducer(state: LoginState, event: LoginEvent): LoginState {
  switch (event.type) {
    case "forgotPassword":
      if (state.mode !== "login") return state;
      return { ...initialLoginState, mode: "forgot-password", username: event.username ?? state.username };
    case "resetCodeSent":
      if (state.mode !== "forgot-password") return state;
      return { ...initialLoginState, mode: "complete-forgot-password", username: event.username };
    case "newPasswordRequired":
      if (state.mode !== "login") return state;
      return {
        mode: "new-password-required",
        username: event.username,
        tempPassword: event.tempPassword,
        challengeSession: event.session,
      };
    case "twoStepCodeRequired":
      if (state.mode !== "login" && state.mode !== "complete-forgot-password") return state;
      return {
        mode: "two-step-code",
        username: event.username,
        tempPassword: event.password,
        challengeSession: event.session,
      };
    case "twoStepSetupRequired":
      return { ...initialLoginState, mode: "two-step-setup", username: event.username };
    case "backToLogin":
      return { ...initialLoginState, username: state.username };
    case "passwordChanged":
      return initialLoginState;
  }
}
