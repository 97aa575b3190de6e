/** The session feature's public surface for the app layer. */
export { useSession, sessionQueryOptions } from "./api/identity/sign_in";
export { signOut, signOutLocally } from "./api/sign-out";
export { RequireSession } from "./components/RequireSession";
export { EmailVerificationBanner } from "./components/EmailVerificationBanner";
export { loginHref } from "./lib/login-redirect";
