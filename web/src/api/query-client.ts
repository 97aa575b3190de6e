/**
 * The app's one QueryClient.
 *
 * A 401/403/406 on a protected call (an `ApiError` with `isAuthError`) sends the user to
 * /login (SPEC 8), unless the query or mutation opted out with `meta: { skipAuthRedirect:
 * true }`. The redirect itself is installed by the app (it owns the router) through
 * `onAuthError`; this module only detects it.
 */
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";

import { ApiError } from "./errors";

interface AuthMeta extends Record<string, unknown> {
  /** Handle a sign-in failure of this call yourself instead of redirecting to /login. */
  skipAuthRedirect?: boolean;
}

declare module "@tanstack/react-query" {
  interface Register {
    queryMeta: AuthMeta;
    mutationMeta: AuthMeta;
  }
}

type AuthErrorHandler = (error: ApiError) => void;
let authErrorHandler: AuthErrorHandler = () => undefined;

/** Installs what happens on an auth error; returns a function that uninstalls it. */
export function onAuthError(handler: AuthErrorHandler): () => void {
  authErrorHandler = handler;
  return () => {
    if (authErrorHandler === handler) authErrorHandler = () => undefined;
  };
}

function handleError(error: unknown, meta: AuthMeta | undefined): void {
  if (error instanceof ApiError && error.isAuthError && !meta?.skipAuthRedirect) {
    authErrorHandler(error);
  }
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (error, query) => handleError(error, query.meta) }),
  mutationCache: new MutationCache({
    onError: (error, _vars, _ctx, mutation) => handleError(error, mutation.meta),
  }),
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // Client errors (4xx) will not change on retry; network and server errors may.
      retry: (failureCount, error) =>
        !(error instanceof ApiError && error.status < 500) && failureCount < 2,
    },
    mutations: { retry: false },
  },
});
