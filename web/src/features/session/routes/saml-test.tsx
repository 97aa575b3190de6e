/**
 * /oauth/saml-test (title 'Test sign-in'): where the hosted UI sends the SAML test window back
 * (README "SAML single sign-on"). It hands the code and state (or the error Cognito reported)
 * to the console window that opened it, which has the API check them, then closes itself.
 * The code is exchanged there, never here: this window signs nobody in.
 */
import { useEffect } from "react";
import { useSearchParams } from "react-router";

import { InfoBox } from "@/components/ui/InfoBox";
import type { SamlTestMessage } from "@/lib/saml-test-message";

import { AuthLayout } from "../components/AuthLayout";
import styles from "../components/forms.module.css";

export function Component() {
  const [params] = useSearchParams();
  const opener = window.opener as Window | null;

  useEffect(() => {
    if (!opener) return;
    const code = params.get("code");
    const state = params.get("state");
    const message: SamlTestMessage =
      code && state
        ? { type: "saml-test", code, state }
        : {
            type: "saml-test",
            error: params.get("error_description") ?? params.get("error") ?? "The sign-in came back without a code.",
          };
    opener.postMessage(message, window.location.origin);
    window.close();
  }, [params, opener]);

  return (
    <AuthLayout title="Test sign-in">
      {!opener ? (
        <InfoBox variant="warning">
          Run the test from User Management → Security → SAML single sign-on: its result shows there.
        </InfoBox>
      ) : (
        <p className={styles.centered}>The test sign-in is finished: its result shows in the console. You can close this window.</p>
      )}
    </AuthLayout>
  );
}
