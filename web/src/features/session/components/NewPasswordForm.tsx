import { type FormEvent, useState } from "react";

import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";

import { validateNewPassword } from "../lib/validation";

import styles from "./forms.module.css";

interface NewPasswordFormProps {
  username: string;
  onBackToLogin: () => void;
}

/**
 * The new-password-required mode (SPEC 2): one password field (placeholder Password) and a
 * 'Change Password' button, with the error above.
 */
export function NewPasswordForm({ username, onBackToLogin }: NewPasswordFormProps) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateNewPassword({ password });
    if (problem) {
      setError(problem.message);
      return;
    }
    // TODO(issue 3): answer the NEW_PASSWORD_REQUIRED challenge with the login state's
    // challengeSession, username and the new password (plus given_name/family_name), store
    // the tokens, dispatch "passwordChanged" (clears the temporary password) and go to /.
    setError("Setting a new password is not available yet. Please email support to finish signing in.");
  }

  return (
    <>
      {error ? <InfoBox variant="error">{error}</InfoBox> : null}
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <input type="hidden" name="username" autoComplete="username" value={username} />
        <TextField
          label="New password"
          type="password"
          name="new-password"
          autoComplete="new-password"
          placeholder="Password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={error ? true : undefined}
          autoFocus
        />
        <Button type="submit" size="lg" block>
          Change Password
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
