/**
 * /oauth/sso (title 'Auth'): the return point after third-party sign-in (SPEC 2).
 */
import { Link, useSearchParams } from "react-router";

import { InfoBox } from "@/components/ui/InfoBox";
import { Spinner } from "@/components/ui/Spinner";

import { AuthLayout } from "../components/AuthLayout";
import styles from "../components/forms.module.css";

export function Component() {
  const [params] = useSearchParams();
  const code = params.get("code");

  if (!code) {
    return (
      <AuthLayout title="Sign in">
        <InfoBox variant="error">Authorization code is not present in request</InfoBox>
        <p className={styles.footnote}>
          <Link to="/login">Back to sign in</Link>
        </p>
      </AuthLayout>
    );
  }

  // TODO(issue 4): exchange the code (SPEC 7 "Token exchange"), then go to / when the session
  // loads, otherwise show the account choice (create or join, SPEC 2 "OAuth landing").
  return (
    <AuthLayout title="Sign in">
      <p className={styles.centered}>
        <Spinner size={18} /> Completing your sign-in…
      </p>
    </AuthLayout>
  );
}
