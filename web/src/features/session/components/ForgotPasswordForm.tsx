import { type FormEvent, useState } from "react";

import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";

import { normalizeEmail, validateForgotPassword } from "../lib/validation";

import styles from "./forms.module.css";

interface ForgotPasswordFormProps {
  initialEmail: string;
  onBackToLogin: () => void;
}

/** The forgot-password mode of the login screen (SPEC 2): email field and 'Reset Password'. */
export function ForgotPasswordForm({ initialEmail, onBackToLogin }: ForgotPasswordFormProps) {
  const [email, setEmail] = useState(initialEmail);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateForgotPassword({ email });
    setError(problem?.message ?? null);
    if (problem) return;
    // TODO(issue 3): call the forgot-password endpoint with normalizeEmail(email), move to
    // complete-forgot-password once the code is reported sent (SPEC 4), and map its errors
    // (SPEC 8 "Forgot-password"). Until then say plainly that this step is not available.
    setNotice(
      `Password reset by email is not available yet for ${normalizeEmail(email)}. ` +
        "Please email support to reset your password.",
    );
  }

  return (
    <>
      {error ? <InfoBox variant="error">{error}</InfoBox> : null}
      {notice ? <InfoBox variant="info">{notice}</InfoBox> : null}
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-invalid={error ? true : undefined}
          autoFocus
        />
        <Button type="submit" size="lg" block>
          Reset Password
        </Button>
      </form>
      <p className={styles.footnote}>
        <button type="button" className={styles.linkButton} onClick={onBackToLogin}>
          Back to sign in
        </button>
      </p>
    </>
  );
}
