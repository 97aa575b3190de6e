import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";

import { useForgotPassword } from "../api/password";
import { normalizeEmail, validateForgotPassword } from "../lib/validation";

import { BackToLogin } from "./BackToLogin";
import styles from "./forms.module.css";

const NO_DELIVERY =
  "There was an error resetting your password. Please email support to reset your password.";

interface ForgotPasswordFormProps {
  initialEmail: string;
  onCodeSent: (email: string) => void;
  onBackToLogin: () => void;
}

/** The forgot-password mode of the login screen (SPEC 2): email field and 'Reset Password'. */
export function ForgotPasswordForm({ initialEmail, onCodeSent, onBackToLogin }: ForgotPasswordFormProps) {
  const [email, setEmail] = useState(initialEmail);
  const [error, setError] = useState<string | null>(null);
  const forgotPassword = useForgotPassword();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateForgotPassword({ email });
    setError(problem?.message ?? null);
    if (problem) return;
    const username = normalizeEmail(email);
    forgotPassword.mutate(
      { body: { email: username } },
      {
        onSuccess: (result) => {
          // null: the provider refused silently (SPEC 8), so nothing changes on screen.
          if (result.codeDelivery === null) return;
          if (!result.codeDelivery?.destination && !result.codeDelivery?.deliveryMedium) {
            setError(NO_DELIVERY);
            return;
          }
          onCodeSent(username);
        },
        // SPEC 8 "Forgot-password": the server carries the messages (its NotAuthorized is the
        // silent success with `codeDelivery: null` above, never an error).
        onError: (err) => setError(errorMessage(err)),
      },
    );
  }

  return (
    <>
      {error ? <InfoBox variant="error">{error}</InfoBox> : null}
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          placeholder="you@company.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-invalid={error ? true : undefined}
          autoFocus
        />
        <Button type="submit" size="lg" block loading={forgotPassword.isPending}>
          Reset Password
        </Button>
      </form>
      <BackToLogin onClick={onBackToLogin} />
    </>
  );
}
