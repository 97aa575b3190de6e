/**
 * /registration (title 'Sign Up').
 * TODO(issue 4): the registration form (SPEC 2 "Registration screen", SPEC 5 rules), the
 * 'Sign up with Google' / 'Sign up with GitHub' buttons and the feature side panel.
 */
import { Link } from "react-router";

import { config } from "@/config";

import { AuthLayout } from "../components/AuthLayout";
import styles from "../components/forms.module.css";

export function Component() {
  return (
    <AuthLayout
      title={`Create your ${config.productName} account`}
      subtitle="Sign up for free. No credit card required."
    >
      <p className={styles.footnote}>
        Already have an account? <Link to="/login">Sign in</Link>
      </p>
    </AuthLayout>
  );
}
