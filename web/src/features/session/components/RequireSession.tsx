/**
 * The SPEC 2 route guard for protected routes: first load the session (a loaded or in-flight
 * one is reused by the query cache; after a reload the API client restores the tokens through
 * the refresh cookie first); with no session, or when the call fails, go to
 * /login?next=<attempted path>&extension=<extension>.
 *
 * `preload` starts, alongside the session, what the signed-in screens need next (their code
 * and data), so a cold load does not wait for the session before asking for them.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { Navigate, Outlet, useLocation } from "react-router";

import { tokenStore } from "@/lib/token-store";

import { useSession } from "../api/session";
import { signOutLocally } from "../api/sign-out";
import { loginHref } from "../lib/login-redirect";

interface RequireSessionProps {
  /** Shown while the session loads. */
  fallback: ReactNode;
  /** Called once when the guard starts loading the session. */
  preload?: () => void;
}

export function RequireSession({ fallback, preload }: RequireSessionProps) {
  const location = useLocation();
  if (!tokenStore.mayHaveSession()) return <Navigate to={loginHref(location)} replace />;
  return <SessionGate fallback={fallback} preload={preload} />;
}

function SessionGate({ fallback, preload }: RequireSessionProps) {
  const location = useLocation();
  const queryClient = useQueryClient();
  const session = useSession();

  // Once per mount of the guard (a cold load or a sign-in), not on each in-app navigation.
  const [preloadOnce] = useState(() => preload);
  useEffect(() => preloadOnce?.(), [preloadOnce]);

  useEffect(() => {
    if (session.isError) signOutLocally(queryClient);
  }, [session.isError, queryClient]);

  if (session.isError) return <Navigate to={loginHref(location)} replace />;
  if (!session.data) return <>{fallback}</>;
  return <Outlet />;
}
