import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";

import { useConfirmEmailCode, useSendEmailCode } from "../api/email-verification";
import { useSession } from "../api/session";
import {
  bannerText,
  codeProblem,
  normalizeCode,
  resentText,
} from "../lib/email-verification";
import { showsVerificationBanner } from "../lib/verification-banner";

import styles from "./EmailVerificationBanner.module.css";

/**
 * Shown on every signed-in screen while the user's email address is unverified (README
 * "Security model", email ownership): 'Enter code' opens a small form for the code Cognito
 * emailed, 'Resend' has a new one sent. Once the code is accepted the session refetches and
 * the banner goes.
 */
export function EmailVerificationBanner() {
  const session = useSession();
  const user = session.data?.session.user;
  const [open, setOpen] = useState(false);
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const send = useSendEmailCode();
  const confirm = useConfirmEmailCode();

  if (!user || !showsVerificationBanner(user)) return null;
  const email = user.email;

  function resend() {
    setProblem(null);
    setNote(null);
    send.mutate(
      {},
      {
        onSuccess: (result) => setNote(resentText(email, result.codeDelivery?.destination)),
        onError: (err) => setProblem(errorMessage(err)),
      },
    );
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setNote(null);
    const wrong = codeProblem(code);
    setProblem(wrong);
    if (wrong) return;
    confirm.mutate(
      { body: { code: normalizeCode(code) } },
      { onError: (err) => setProblem(errorMessage(err)) },
    );
  }

  return (
    <div className={styles.banner} data-testid="email-verification-banner">
      <InfoBox variant="warning" title="Verify your email address">
        <p>{bannerText(email)}</p>
        {open ? (
          <form className={styles.form} onSubmit={submit} noValidate>
            <TextField
              className={styles.code}
              label="Verification code"
              name="email-code"
              autoComplete="one-time-code"
              inputMode="numeric"
              placeholder="6-digit code"
              value={code}
              onChange={(e) => setCode(e.currentTarget.value)}
              autoFocus
            />
            <Button type="submit" loading={confirm.isPending}>
              Verify
            </Button>
          </form>
        ) : null}
        <div className={styles.actions}>
          {open ? null : (
            <Button variant="secondary" onClick={() => setOpen(true)}>
              Enter code
            </Button>
          )}
          <Button variant="ghost" onClick={resend} loading={send.isPending}>
            Resend
          </Button>
        </div>
        {note ? (
          <p className={styles.note} role="status">
            {note}
          </p>
        ) : null}
        {problem ? (
          <p className={styles.problem} role="alert">
            {problem}
          </p>
        ) : null}
      </InfoBox>
    </div>
  );
}
