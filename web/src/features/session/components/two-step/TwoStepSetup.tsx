/**
 * Setting up two-step sign-in (README "Two-step sign-in"): a new secret from the API (Cognito
 * AssociateSoftwareToken) shown as a QR code of its `otpauth://` URI, drawn in the browser by
 * qrcode.react (no image service sees the secret), and as text; a code from the app confirms
 * it; then the ten recovery codes, shown once. Loaded only where it is used (the Two-step
 * sign-in page, the login screen's set-up mode), so /login's first load does not carry it.
 */
import { QRCodeSVG } from "qrcode.react";
import { type FormEvent, useEffect, useRef, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { InfoBox } from "@/components/ui/InfoBox";
import { Spinner } from "@/components/ui/Spinner";
import { config } from "@/config";

import { useConfirmTwoStepSetup, useStartTwoStepSetup } from "../../api/two-step";
import { CODE_REQUIRED, groupSecret, otpauthUri } from "../../lib/two-step";

import { AuthenticationCodeField } from "./AuthenticationCodeField";
import { RecoveryCodes } from "./RecoveryCodes";
import styles from "./two-step.module.css";

interface TwoStepSetupProps {
  /** The account name the authenticator app shows (the user's email). */
  email: string;
  /** The button under the recovery codes, e.g. 'Continue' or 'Done'. */
  doneLabel: string;
  onDone: () => void;
}

export default function TwoStepSetup({ email, doneLabel, onDone }: TwoStepSetupProps) {
  const start = useStartTwoStepSetup();
  const confirm = useConfirmTwoStepSetup();
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return; // once, also under StrictMode's double effects
    started.current = true;
    start.mutate({});
  }, [start]);

  if (confirm.data) {
    return (
      <div className={styles.setup}>
        <InfoBox variant="info" title="Two-step sign-in is on">
          From now on you sign in with your password and a code from your authenticator app.
        </InfoBox>
        <RecoveryCodes codes={confirm.data.recoveryCodes} email={email} />
        <div>
          <Button onClick={onDone}>{doneLabel}</Button>
        </div>
      </div>
    );
  }
  if (start.error) return <InfoBox variant="error">{errorMessage(start.error)}</InfoBox>;
  const secret = start.data?.secretCode;
  if (!secret) {
    return (
      <p className={styles.waiting}>
        <Spinner size={18} /> Preparing your authenticator key…
      </p>
    );
  }

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!code.trim()) {
      setError(CODE_REQUIRED);
      return;
    }
    setError(null);
    confirm.mutate({ body: { code: code.trim() } }, { onError: (err) => setError(errorMessage(err)) });
  }

  return (
    <div className={styles.setup}>
      <ol className={styles.steps}>
        <li>
          <p>Scan this QR code with an authenticator app (1Password, Google Authenticator, Authy…).</p>
          <div className={styles.qr}>
            <QRCodeSVG
              value={otpauthUri(config.productName, email, secret)}
              size={168}
              marginSize={2}
              title="QR code of your authenticator key"
            />
          </div>
          <p className={styles.keyLine}>
            Or enter this key by hand:{" "}
            <code className={styles.secret} data-testid="two-step-secret">
              {groupSecret(secret)}
            </code>
            <CopyButton value={secret} label="Copy key" />
          </p>
        </li>
        <li>
          <p>Enter the 6-digit code the app shows for {config.productName}.</p>
          {error ? <InfoBox variant="error">{error}</InfoBox> : null}
          <form className={styles.confirm} onSubmit={handleSubmit} noValidate>
            <AuthenticationCodeField value={code} onChange={setCode} invalid={error !== null} />
            <Button type="submit" loading={confirm.isPending}>
              Turn on two-step sign-in
            </Button>
          </form>
        </li>
      </ol>
    </div>
  );
}
