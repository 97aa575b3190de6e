/**
 * Every route of SPEC 2 (react-router, declarative mode: its data mode would cost ~15 KB gzip
 * more, see bench/bundle). Pages are code-split with React.lazy, so /login loads none of the
 * account pages and the account pages load none of the sign-in screens.
 *
 * Titles: where the spec shows one it is used as is ('Login', 'Auth', 'Sign Up', 'Payment');
 * where it does not, the page's heading is ('Account Information', 'User Management',
 * 'Billing & Subscription'; "/" has that of /account, where it redirects); /logout and the
 * provider redirects have none. /activity (the audit log, README "Audit log") is 'Activity';
 * /oauth/saml-test (the SAML test window, README "SAML single sign-on") 'Test sign-in';
 * /two-step-sign-in (README "Two-step sign-in") 'Two-step sign-in'; /access-tokens (README
 * "Automation") 'Access tokens'; /sessions (README "Sessions") 'Sessions'; /passkeys
 * (docs/users/passkeys.md) 'Passkeys'.
 */
import { type ComponentType, Suspense, lazy, useEffect } from "react";
import { Navigate, Route, Routes, useNavigate } from "react-router";

import { getAccessToken } from "@/api";
import { accountQueryOptions, cycleUsageQueryOptions } from "@/features/account";
import { RequireSession, loginHref } from "@/features/session";
import { onAuthError, queryClient } from "@/api/query-client";

import { FullPageSpinner, RootLayout, Titled } from "./root-layout";
import { NotFound } from "./routes/not-found";

/** A code-split page; `preload()` fetches its code ahead of the render (a module loads once). */
function lazyRoute(load: () => Promise<{ Component: ComponentType }>) {
  const Page = lazy(() => load().then((module) => ({ default: module.Component })));
  return Object.assign(Page, { preload: () => void load().catch(() => undefined) });
}

const Shell = lazyRoute(() => import("./shell/Shell"));
const AccountPage = lazyRoute(() => import("@/features/account/routes/account"));
const UsersPage = lazyRoute(() => import("@/features/users/routes/users"));
const BillingPage = lazyRoute(() => import("@/features/billing/routes/billing"));
const ActivityPage = lazyRoute(() => import("@/features/activity/routes/activity"));
const AccessTokensPage = lazyRoute(() => import("@/features/access-tokens/routes/access-tokens"));
const TwoStepPage = lazyRoute(() => import("@/features/session/routes/two-step-sign-in"));
const SessionsPage = lazyRoute(() => import("@/features/sessions/routes/sessions"));
const PasskeysPage = lazyRoute(() => import("@/features/passkeys/routes/passkeys"));
const PaymentPage = lazyRoute(() => import("@/features/billing/routes/payment"));
const LoginPage = lazyRoute(() => import("@/features/session/routes/login"));
const LogoutPage = lazyRoute(() => import("@/features/session/routes/logout"));
const OAuthSsoPage = lazyRoute(() => import("@/features/session/routes/oauth-sso"));
const SamlTestPage = lazyRoute(() => import("@/features/session/routes/saml-test"));
const RegistrationPage = lazyRoute(() => import("@/features/session/routes/registration"));
const GoogleLoginPage = lazy(() =>
  import("@/features/session/routes/oauth-provider").then((m) => ({ default: m.GoogleLogin })),
);
const GithubLoginPage = lazy(() =>
  import("@/features/session/routes/oauth-provider").then((m) => ({ default: m.GithubLogin })),
);

/** The page each signed-in path shows, for {@link preloadSignedIn}. */
const SIGNED_IN_PAGES: Record<string, { preload: () => void }> = {
  "/": AccountPage,
  "/account": AccountPage,
  "/users": UsersPage,
  "/billing": BillingPage,
  "/activity": ActivityPage,
  "/access-tokens": AccessTokensPage,
  "/two-step-sign-in": TwoStepPage,
  "/passkeys": PasskeysPage,
  "/sessions": SessionsPage,
  "/payment": PaymentPage,
};

/**
 * Started by the session guard as it loads the session: every signed-in screen reads GET
 * /web/account (the shell shows its content once both have loaded), so the account is asked
 * for as soon as the tokens are there (after the reload's refresh, which the session's call
 * shares) instead of after the session; the shell's and the page's code load meanwhile. A
 * fresh account in the cache is not fetched again (its staleTime), so in-app navigation stays
 * one request.
 */
function preloadSignedIn() {
  const page = SIGNED_IN_PAGES[window.location.pathname];
  if (page !== PaymentPage) Shell.preload();
  page?.preload();
  getAccessToken()
    .then((token) => {
      if (!token) return;
      // Account Information also shows the billing cycles' usage (GET /web/usage).
      if (page === AccountPage) void queryClient.prefetchQuery(cycleUsageQueryOptions());
      return queryClient.prefetchQuery(accountQueryOptions());
    })
    .catch(() => undefined); // the session's own call reports a failed refresh
}

/** SPEC 8: a 401/403/406 on a protected call sends the user to /login, unless it opted out. */
function useAuthErrorRedirect() {
  const navigate = useNavigate();
  useEffect(
    () =>
      onAuthError(() => {
        if (window.location.pathname === "/login") return;
        void navigate(loginHref(window.location), { replace: true });
      }),
    [navigate],
  );
}

export function AppRoutes() {
  useAuthErrorRedirect();
  const spinner = <FullPageSpinner />;
  return (
    <Suspense fallback={spinner}>
      <Routes>
        <Route element={<RootLayout />}>
          <Route element={<RequireSession fallback={spinner} preload={preloadSignedIn} />}>
            <Route element={<Shell />}>
              <Route
                index
                element={
                  <Titled title="Account Information">
                    <Navigate to="/account" replace />
                  </Titled>
                }
              />
              <Route path="account" element={<Titled title="Account Information"><AccountPage /></Titled>} />
              <Route path="users" element={<Titled title="User Management"><UsersPage /></Titled>} />
              <Route path="billing" element={<Titled title="Billing & Subscription"><BillingPage /></Titled>} />
              <Route path="activity" element={<Titled title="Activity"><ActivityPage /></Titled>} />
              <Route
                path="access-tokens"
                element={<Titled title="Access tokens"><AccessTokensPage /></Titled>}
              />
              <Route
                path="two-step-sign-in"
                element={<Titled title="Two-step sign-in"><TwoStepPage /></Titled>}
              />
              <Route path="sessions" element={<Titled title="Sessions"><SessionsPage /></Titled>} />
              <Route path="passkeys" element={<Titled title="Passkeys"><PasskeysPage /></Titled>} />
            </Route>
            {/* Sign-in is "not shown" for /payment in the spec; changing a card needs an account. */}
            <Route path="payment" element={<Titled title="Payment"><PaymentPage /></Titled>} />
          </Route>
          <Route path="login" element={<Titled title="Login"><LoginPage /></Titled>} />
          <Route path="logout" element={<LogoutPage />} />
          <Route path="oauth/sso" element={<Titled title="Auth"><OAuthSsoPage /></Titled>} />
          <Route path="oauth/saml-test" element={<Titled title="Test sign-in"><SamlTestPage /></Titled>} />
          <Route path="oauth/google/login" element={<GoogleLoginPage />} />
          <Route path="oauth/github/login" element={<GithubLoginPage />} />
          <Route path="registration" element={<Titled title="Sign Up"><RegistrationPage /></Titled>} />
          <Route path="*" element={<Titled title="Page not found"><NotFound /></Titled>} />
        </Route>
      </Routes>
    </Suspense>
  );
}
