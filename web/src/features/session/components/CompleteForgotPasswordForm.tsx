import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";

import { useConfirmForgotPassword } from "../api/password";
import { type NextStep, nextStep } from "../lib/two-step";
import { validateCompleteForgotPassword } from "../lib/validation";

import { BackToLogin } from "./BackToLogin";
import styles from "./forms.module.css";

interface CompleteForgotPasswordFormProps {
  email: string;
  /** Signed in with the new password. */
  onDone: () => void;
  /** Two-step sign-in asks for its code (a reset does not bypass it), or a set-up first. */
  onTwoStep: (step: NextStep, password: string) => void;
  onBackToLogin: () => void;
}

/**
 * The complete-forgot-password mode (SPEC 2): email (read-only), verification code, new
 * password, confirm password and 'Change Password'. Success signs the user in (SPEC 4).
 */
export function CompleteForgotPasswordForm({
  email,
  onDone,
  onTwoStep,
  onBackToLogin,
}: CompleteForgotPasswordFormProps) {
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const [confirmPassword, setConfirmPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [invalidField, setInvalidField] = useState<string | null>(null);
  const confirm = useConfirmForgotPassword();

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateCompleteForgotPassword({ email, code, password, confirmPassword });
    setError(problem?.message ?? null);
    setInvalidField(problem?.field ?? null);
    if (problem) return;
    confirm.mutate(
      { body: { email, code: code.trim(), newPassword: password } },
      {
        onSuccess: (result) => {
          const step = nextStep(result, email);
          if (step.kind === "signedIn") onDone();
          else if (step.kind === "challenge") setError(`Unexpected sign-in challenge: ${step.name}`);
          else onTwoStep(step, password);
        },
        onError: (err) => setError(errorMessage(err)),
      },
    );
  }

  return (
    <>
      <InfoBox variant="info">We emailed a verification code to {email}.</InfoBox>
      {error ? <InfoBox variant="error">{error}</InfoBox> : null}
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <TextField label="Email" type="email" name="email" autoComplete="username" value={email} readOnly />
        <TextField
          label="Verification code"
          name="code"
          autoComplete="one-time-code"
          inputMode="numeric"
          placeholder="Code from the email"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          aria-invalid={invalidField === "code" || undefined}
          autoFocus
        />
        <TextField
          label="New password"
          type="password"
          name="new-password"
          autoComplete="new-password"
          placeholder="New password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={invalidField === "password" || undefined}
        />
        <TextField
          label="Confirm password"
          type="password"
          name="confirm-password"
          autoComplete="new-password"
          placeholder="Confirm password"
          value={confirmPassword}
          onChange={(e) => setConfirmPassword(e.target.value)}
          aria-invalid={invalidField === "confirmPassword" || undefined}
        />
        <Button type="submit" size="lg" block loading={confirm.isPending}>
          Change Password
        </Button>
      </form>
      <BackToLogin onClick={onBackToLogin} />
    </>
  );
}
