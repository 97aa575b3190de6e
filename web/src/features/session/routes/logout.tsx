/**
 * /logout: signs the user out (SPEC 2), then replaces the route with /.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, type ReactNode } from "react";
import { useNavigate } from "react-router";

import { signOut } from "../api/sign-out";

export function Component({ fallback = null }: { fallback?: ReactNode }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return; // StrictMode runs effects twice in development
    started.current = true;
    void signOut(queryClient).finally(() => {
      void navigate("/", { replace: true });
    });
  }, [queryClient, navigate]);

  return <>{fallback}</>;
}
