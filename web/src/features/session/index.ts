/** The session feature's public surface for the app layer. */
export { useSession, sessionQueryOptions } from "./api/session";
export { signOut, signOutLocally } from "./api/sign-out";
export { RequireSession } from "./components/RequireSession";
export { showsVerificationBanner } from "./lib/verification-banner";
export { loginHref } from "./lib/login-redirect";
