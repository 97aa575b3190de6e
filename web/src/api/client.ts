/**
 * The only HTTP path of the SPA: openapi-fetch typed by the generated `schema.d.ts`, wrapped
 * by openapi-react-query (`$api.useQuery("get", "/web/account")`).
 *
 * The middleware
 * - adds `Authorization: Bearer <access token>` to every protected call, getting new tokens
 *   first (POST /web/session/refresh, which sends the httpOnly refresh token cookie) when they
 *   expire within a minute or, after a reload, are not in memory yet; concurrent calls share
 *   one refresh;
 * - turns every non-2xx response into an `ApiError` (status, status text, parsed body), except
 *   the 304 of a conditional read, which `withConditionalGets` (./conditional.ts) resolves to
 *   the data the query cache already holds.
 *
 * A call refused with 401 `SessionEnded` (the user's sessions were ended elsewhere) refreshes
 * and is sent once more, writes included: the sign-in policy refuses before the route runs,
 * so that 401 guarantees nothing was done. A 401 of the sign-in policy keeps its message for
 * /login (lib/sign-in-notice.ts).
 *
 * A refused refresh, or a 401 to a protected call, clears the stored tokens (local
 * sign-out); the 401 becomes an auth `ApiError`, and the query cache's error handler sends the
 * user to /login (./query-client.ts, installed by app/routes.tsx). A refresh that cannot be
 * made now (offline, throttled, 5xx) fails the call that needed it and keeps the session.
 */
import createFetchClient, { type Middleware } from "openapi-fetch";

import { config } from "@/config";
import { queryClient } from "./query-client";
import { rememberSignInNotice } from "@/lib/sign-in-notice";
import { type TokenStore, tokenStore } from "@/lib/token-store";

import { withConditionalGets } from "./conditional";
import { ApiError, signInPolicyRefusal } from "./errors";
import { createQueryHooks } from "./query-hooks";
import type { paths } from "./schema";
import type { ErrorCode } from "./types";

/** Calls that need no sign-in: no bearer token, and a 401/403/406 there is not an auth error. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set([
  "/web/config",
  "/web/session/sign-in",
  "/web/session/refresh",
  "/web/session/complete-new-password",
  "/web/session/forgot-password",
  "/web/session/confirm-forgot-password",
  "/web/session/authorize",
  "/web/session/token",
  "/web/registration",
  "/web/session/passkey/options",
  "/web/session/passkey",
]);

/** The sign-in policy's 401 for a token issued before the user's sessions were ended. */
const SESSION_ENDED = "SessionEnded" satisfies ErrorCode;

/** Keep the message of a sign-in policy refusal for /login (lib/sign-in-notice.ts). */
function noteSignInRefusal(body: unknown): void {
  const refusal = signInPolicyRefusal(body);
  if (refusal) rememberSignInNotice(refusal.message);
}

export function isProtectedPath(schemaPath: string): boolean {
  return !PUBLIC_PATHS.has(schemaPath);
}

export interface ApiClientOptions {
  baseUrl: string;
  tokens: TokenStore;
  /** The fetch to use; the global one by default (tests pass their own). */
  fetch?: typeof globalThis.fetch;
}

export function createApiClient({ baseUrl, tokens, fetch }: ApiClientOptions) {
  // Cookies (the refresh token, the OAuth flow) go along also when the API is on another
  // origin of the same site; the API allows credentials for its configured origins only.
  const options = { baseUrl, credentials: "include" as const, ...(fetch ? { fetch } : {}) };
  /** Without middleware: used for the token refresh itself. */
  const bareClient = createFetchClient<paths>(options);
  let refreshInFlight: Promise<string | null> | null = null;
  /** An unsent copy of each protected call, to send again after a `SessionEnded` refusal
   * (the body of the one sent is consumed). */
  const unsent = new WeakMap<Request, Request>();

  /** New tokens through the cookie. A refusal signs out locally (null). A refresh that cannot
   * be made now (offline, 429 of the refresh throttle, 5xx) keeps the session and throws, so
   * the call that needed it fails with that error and a later one tries again: a throttle
   * someone else on the same address can fill must not sign anyone out. */
  async function refresh(): Promise<string | null> {
    const { data, error, response } = await bareClient.POST("/web/session/refresh");
    if (data) return tokens.save(data).value.accessToken;
    if (response.status === 429 || response.status >= 500) {
      // openapi-fetch has read the body already: `error` is it, parsed.
      throw new ApiError(response.status, response.statusText, error, false);
    }
    noteSignInRefusal(error);
    tokens.clear();
    return null;
  }

  /** New tokens through the cookie; concurrent callers share one refresh. */
  function sharedRefresh(): Promise<string | null> {
    refreshInFlight ??= refresh().finally(() => {
      refreshInFlight = null;
    });
    return refreshInFlight;
  }

  /** A usable access token, refreshed when needed; null when signed out. */
  async function getAccessToken(): Promise<string | null> {
    const entry = tokens.read();
    if (entry && !tokens.needsRefresh(entry)) return entry.value.accessToken;
    if (!tokens.mayHaveSession()) return null;
    return sharedRefresh();
  }

  const middleware: Middleware = {
    async onRequest({ request, schemaPath }) {
      if (!isProtectedPath(schemaPath)) return undefined;
      const token = await getAccessToken();
      if (token) request.headers.set("Authorization", `Bearer ${token}`);
      unsent.set(request, request.clone());
      return request;
    },
    async onResponse({ request, response, schemaPath }) {
      if (response.ok || response.status === 304) return undefined;
      const error = await ApiError.fromResponse(response, isProtectedPath(schemaPath));
      const copy = unsent.get(request);
      if (error.status === 401 && error.code === SESSION_ENDED && copy) {
        // The user's sessions were ended elsewhere (a role change, a sign-out on another
        // device): a refresh decides whether this browser may go on, and the call is sent
        // again once with the new token.
        unsent.delete(request);
        const token = await sharedRefresh();
        if (token) {
          const retry = copy;
          retry.headers.set("Authorization", `Bearer ${token}`);
          const again = await (fetch ?? globalThis.fetch)(retry);
          if (again.ok || again.status === 304) return again;
          throw await ApiError.fromResponse(again, true);
        }
      }
      if (error.status === 401 && isProtectedPath(schemaPath)) {
        // The API refused this browser's token: sign out locally, so /login does not take the
        // cached session for a live one and send the user straight back.
        tokens.clear();
        noteSignInRefusal(error.body);
      }
      throw error;
    },
  };

  const fetchClient = createFetchClient<paths>(options);
  fetchClient.use(middleware);
  return { fetchClient, getAccessToken };
}

const client = createApiClient({ baseUrl: config.apiBaseUrl, tokens: tokenStore });

export const fetchClient = client.fetchClient;
export const getAccessToken = client.getAccessToken;
export const $api = createQueryHooks(withConditionalGets(fetchClient, queryClient));
