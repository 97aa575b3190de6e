/**
 * /oauth/google/login and /oauth/github/login: send the browser to the hosted identity
 * provider's authorize page (SPEC 2) with response type code, the client id, a redirect back
 * to /oauth/sso on this host, and the provider name.
 */
import { useEffect } from "react";
import { Link } from "react-router";

import { errorMessage } from "@/api";
import { InfoBox } from "@/components/ui/InfoBox";
import { Spinner } from "@/components/ui/Spinner";

import { useWebConfig } from "../api/web-config";
import { AuthLayout } from "../components/AuthLayout";
import styles from "../components/forms.module.css";

export type IdentityProviderName = "Google" | "Github";

export function authorizeUrl(
  identityProvider: { authorizeUrl: string; clientId: string },
  provider: IdentityProviderName,
  origin: string,
): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: identityProvider.clientId,
    redirect_uri: `${origin}/oauth/sso`,
    identity_provider: provider,
  });
  return `${identityProvider.authorizeUrl}?${params.toString()}`;
}

function ProviderRedirect({ provider }: { provider: IdentityProviderName }) {
  const webConfig = useWebConfig();
  const target = webConfig.data
    ? authorizeUrl(webConfig.data.identityProvider, provider, window.location.origin)
    : null;

  useEffect(() => {
    if (target) window.location.replace(target);
  }, [target]);

  const label = provider === "Github" ? "GitHub" : provider;
  return (
    <AuthLayout title={`Sign in with ${label}`}>
      {webConfig.isError ? (
        <>
          <InfoBox variant="error">{errorMessage(webConfig.error)}</InfoBox>
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
