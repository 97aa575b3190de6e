import { type ReactNode, useEffect } from "react";
import { Navigate, Outlet, useLocation } from "react-router";

import { Spinner } from "@/components/ui/Spinner";

import styles from "./root-layout.module.css";

/**
 * The root of every route. SPEC 2: "When a deviceId query is present, navigation is
 * redirected to /."
 */
export function RootLayout() {
  const { search } = useLocation();
  if (new URLSearchParams(search).has("deviceId")) return <Navigate to="/" replace />;
  return <Outlet />;
}

/**
 * Sets the document title once the route shows (SPEC 2: "Page titles are set after each
 * navigation when the route has one").
 */
export function Titled({ title, children }: { title: string; children: ReactNode }) {
  const { key } = useLocation();
  useEffect(() => {
    document.title = title;
  }, [title, key]);
  return <>{children}</>;
}

/** Shown while a route's code or the session loads. */
export function FullPageSpinner() {
  return (
    <div className={styles.fullPage}>
      <Spinner size={24} label="Loading" />
    </div>
  );
}
