/**
 * /oauth/google/login and /oauth/github/login: send the browser to the hosted identity
 * provider's authorize page (SPEC 2) with response type code, the client id, a redirect back
 * to /oauth/sso on this host, and the provider name. The API builds the URL
 * (POST /web/session/authorize) and adds this attempt's `state` and PKCE challenge, whose
 * secrets it keeps in an httpOnly cookie for the code exchange (README "Where tokens live").
 */
import { useEffect, useRef } from "react";

import { $api, errorMessage } from "@/api";
import { Link } from "@/components/Link";
import { InfoBox } from "@/components/ui/InfoBox";
import { Spinner } from "@/components/ui/Spinner";

import { AuthLayout } from "../components/AuthLayout";
import styles from "../components/forms.module.css";

export type IdentityProviderName = "Google" | "Github";

function ProviderRedirect({ provider }: { provider: IdentityProviderName }) {
  const authorize = $api.useMutation("post", "/web/session/authorize");
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return; // StrictMode runs effects twice in development
    started.current = true;
    authorize.mutate(
      { body: { identityProvider: provider, redirectUri: `${window.location.origin}/oauth/sso` } },
      { onSuccess: ({ authorizeUrl }) => window.location.replace(authorizeUrl) },
    );
  }, [authorize, provider]);

  const label = provider === "Github" ? "GitHub" : provider;
  return (
    <AuthLayout title={`Sign in with ${label}`}>
      {authorize.isError ? (
        <>
          <InfoBox variant="error">{errorMessage(authorize.error)}</InfoBox>
          <p className={styles.footnote}>
            <Link to="/login">Back to sign in</Link>
          </p>
        </>
      ) : (
        <p className={styles.centered}>
          <Spinner size={18} /> Redirecting to {label}…
        </p>
      )}
    </AuthLayout>
  );
}

export function GoogleLogin() {
  return <ProviderRedirect provider="Google" />;
}

export function GithubLogin() {
  return <ProviderRedirect provider="Github" />;
}
