import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";

import { useAnswerTwoStepCode, useRecoveryCodeSignIn } from "../api/two-step";
import { CODE_REQUIRED, RECOVERY_CODE_REQUIRED, type NextStep, nextStep } from "../lib/two-step";

import { BackToLogin } from "./BackToLogin";
import { AuthenticationCodeField } from "./two-step/AuthenticationCodeField";
import styles from "./forms.module.css";

interface TwoStepCodeFormProps {
  username: string;
  /** The password just entered: a recovery code is sent with it. */
  password: string;
  /** The identity provider's session of the pending SOFTWARE_TOKEN_MFA challenge. */
  challengeSession: string;
  /** Signed in (or a set-up must come first). */
  onSignedIn: (step: NextStep) => void;
  onBackToLogin: () => void;
}

/**
 * The two-step code mode of the login screen (README "Two-step sign-in"): the 6-digit code of
 * the user's authenticator app ('Enter the 6-digit code from your authenticator app' when
 * empty, the provider's message otherwise), or, after 'Use a recovery code instead', one of
 * their recovery codes.
 */
export function TwoStepCodeForm({
  username,
  password,
  challengeSession,
  onSignedIn,
  onBackToLogin,
}: TwoStepCodeFormProps) {
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const answer = useAnswerTwoStepCode();
  const recover = useRecoveryCodeSignIn();

  function switchTo(recovery: boolean) {
    setUseRecovery(recovery);
    setCode("");
    setError(null);
  }

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!code.trim()) {
      setError(useRecovery ? RECOVERY_CODE_REQUIRED : CODE_REQUIRED);
      return;
    }
    setError(null);
    const handlers = {
      onSuccess: (result: Parameters<typeof nextStep>[0]) => {
        const step = nextStep(result, username);
        if (step.kind === "signedIn" || step.kind === "twoStepSetup") onSignedIn(step);
        else setError(`Unexpected sign-in challenge: ${step.kind === "challenge" ? step.name : step.kind}`);
      },
      onError: (err: unknown) => setError(errorMessage(err)),
    };
    if (useRecovery) {
      recover.mutate({ body: { email: username, password, recoveryCode: code.trim() } }, handlers);
    } else {
      answer.mutate({ body: { username, session: challengeSession, code: code.trim() } }, handlers);
    }
  }

  return (
    <>
      {error ? <InfoBox variant="error">{error}</InfoBox> : null}
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <input type="hidden" name="username" autoComplete="username" value={username} />
        {useRecovery ? (
          <TextField
            key="recovery"
            label="Recovery code"
            name="recovery-code"
            autoComplete="off"
            placeholder="xxxxx-xxxxx"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            aria-invalid={error ? true : undefined}
            autoFocus
          />
        ) : (
          <AuthenticationCodeField key="code" value={code} onChange={setCode} invalid={error !== null} autoFocus />
        )}
        <Button type="submit" size="lg" block loading={answer.isPending || recover.isPending}>
          {useRecovery ? "Sign in with recovery code" : "Verify"}
        </Button>
      </form>
      <p className={styles.footnote}>
        <button type="button" className={styles.linkButton} onClick={() => switchTo(!useRecovery)}>
          {useRecovery ? "Use your authenticator app instead" : "Use a recovery code instead"}
        </button>
      </p>
      <BackToLogin onClick={onBackToLogin} />
    </>
  );
}
