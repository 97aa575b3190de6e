import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";

import { useCompleteNewPassword } from "../api/password";
import { nextStep } from "../lib/two-step";
import { validateNewPassword } from "../lib/validation";

import { BackToLogin } from "./BackToLogin";
import styles from "./forms.module.css";

interface NewPasswordFormProps {
  username: string;
  /** The identity provider's session of the pending challenge. */
  challengeSession: string;
  /** Signed in with the new password. */
  onDone: () => void;
  /** Signed in, and two-step sign-in must be set up first (the account requires it). */
  onTwoStepSetup: () => void;
  onBackToLogin: () => void;
}

/**
 * The new-password-required mode (SPEC 2): one password field (placeholder Password) and a
 * 'Change Password' button, with the error above. The server adds given_name and
 * family_name from our user record to the answer (SPEC 3).
 */
export function NewPasswordForm({
  username,
  challengeSession,
  onDone,
  onTwoStepSetup,
  onBackToLogin,
}: NewPasswordFormProps) {
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const complete = useCompleteNewPassword();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateNewPassword({ password });
    if (problem) {
      setError(problem.message);
      return;
    }
    setError(null);
    complete.mutate(
      { body: { username, session: challengeSession, newPassword: password } },
      {
        onSuccess: (result) => {
          const step = nextStep(result, username);
          if (step.kind === "signedIn") onDone();
          else if (step.kind === "twoStepSetup") onTwoStepSetup();
          // SPEC 8: an unexpected challenge state raises an error naming the state.
          else setError(`Unexpected challenge state: ${result.challenge?.name ?? "none"}`);
        },
        onError: (err) => setError(errorMessage(err)),
      },
    );
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
        <Button type="submit" size="lg" block loading={complete.isPending}>
          Change Password
        </Button>
      </form>
      <BackToLogin onClick={onBackToLogin} />
    </>
  );
}
