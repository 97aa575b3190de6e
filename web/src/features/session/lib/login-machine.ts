/**
 * The login screen's four modes (SPEC 2 "Login screen", SPEC 4 "Login mode") as a reducer.
 * State: mode, username, tempPassword (SPEC 3 "Login state"), plus the identity provider's
 * challenge session that the new-password answer must carry.
 *
 *   login ──forgotPassword──▶ forgot-password ──resetCodeSent──▶ complete-forgot-password
 *   login ──newPasswordRequired──▶ new-password-required (the temporary password is kept)
 *   any ──backToLogin / passwordChanged──▶ login (the temporary password is cleared)
 */

export type LoginMode =
  | "login"
  | "forgot-password"
  | "complete-forgot-password"
  | "new-password-required";

export interface LoginState {
  mode: LoginMode;
  /** The email the user is signing in or resetting with. */
  username: string;
  /** The temporary password of a new-password challenge; empty otherwise. */
  tempPassword: string;
  /** The identity provider's session of a pending new-password challenge. */
  challengeSession: string | null;
}

export type LoginEvent =
  | { type: "forgotPassword"; username?: string }
  | { type: "resetCodeSent"; username: string }
  | { type: "newPasswordRequired"; username: string; tempPassword: string; session: string }
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
    case "backToLogin":
      return { ...initialLoginState, username: state.username };
    case "passwordChanged":
      return initialLoginState;
  }
}
