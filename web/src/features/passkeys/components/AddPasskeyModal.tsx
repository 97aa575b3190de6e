/**
 * Add a passkey (docs/users/passkeys.md "Adding, naming and removing"), in three steps: a
 * recent sign-in (the password, and the authenticator app's code when two-step sign-in is on:
 * shown from the start when the page knows it is on, or once the API answers
 * TwoStepCodeRequired), the browser's own prompt (`navigator.credentials.create`), then a name,
 * suggested from this browser and OS. Closing the browser's prompt goes back to the first step
 * with a calm note: nothing was added.
 */
import { type FormEvent, useState } from "react";

import { errorMessage, isApiError } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { TextField } from "@/components/ui/TextField";
import { creationOptions, credentialJSON, isCancelled, suggestedName } from "@/lib/webauthn";

import { type Passkey, useAddPasskey, useStartRegistration } from "../api/passkeys";

import { NAME_MAX_LENGTH, NAME_REQUIRED } from "./RenamePasskeyModal";
import styles from "./passkeys.module.css";

export const CANCELLED = "No passkey was added: the browser's prompt was closed. Continue to try again.";
const CODE_REQUIRED = "Enter the 6-digit code from your authenticator app";

interface AddPasskeyModalProps {
  /** Two-step sign-in is on: the code field shows from the start. */
  twoStepOn: boolean;
  onClose: () => void;
  onAdded: (passkey: Passkey) => void;
}

type Step = "verify" | "prompt" | "name";

export function AddPasskeyModal({ twoStepOn, onClose, onAdded }: AddPasskeyModalProps) {
  const start = useStartRegistration();
  const add = useAddPasskey();
  const [step, setStep] = useState<Step>("verify");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [needsCode, setNeedsCode] = useState(twoStepOn);
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [credential, setCredential] = useState<Record<string, unknown> | null>(null);
  const [name, setName] = useState(() => suggestedName(navigator.userAgent));
  const [nameProblem, setNameProblem] = useState<string | null>(null);

  async function verify(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setNote(null);
    const missing = !password ? "Password is required" : needsCode && !code.trim() ? CODE_REQUIRED : null;
    setProblem(missing);
    if (missing) return;
    let options: Record<string, unknown>;
    try {
      const answer = await start.mutateAsync({ body: { password, code: needsCode ? code.trim() : null } });
      options = answer.options;
    } catch (error) {
      if (isApiError(error) && error.code === "TwoStepCodeRequired") {
        setNeedsCode(true);
        start.reset();
        setProblem(CODE_REQUIRED);
      }
      return; // the mutation's error shows
    }
    setStep("prompt");
    try {
      const made = (await navigator.credentials.create({ publicKey: creationOptions(options) })) as PublicKeyCredential | null;
      if (!made) throw new DOMException("The browser made no passkey.", "NotAllowedError");
      setCredential(credentialJSON(made));
      setStep("name");
    } catch (error) {
      setStep("verify");
      start.reset();
      if (isCancelled(error)) setNote(CANCELLED);
      else setProblem(errorMessage(error));
    }
  }

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = name.trim();
    setNameProblem(trimmed ? null : NAME_REQUIRED);
    if (!trimmed || !credential) return;
    add.mutate({ body: { credential, name: trimmed } }, { onSuccess: (data) => onAdded(data.passkey) });
  }

  if (step === "name") {
    const taken = isApiError(add.error) && add.error.code === "PasskeyNameTaken";
    return (
      <Modal open onClose={onClose} width="medium" title="Name your passkey">
        <form className={styles.form} onSubmit={save} noValidate>
          {add.error && !taken ? <InfoBox variant="error">{errorMessage(add.error)}</InfoBox> : null}
          <p className={styles.lead}>Your browser made the passkey. Name it so you can tell it apart later.</p>
          <TextField
            label="Name"
            name="name"
            maxLength={NAME_MAX_LENGTH}
            value={name}
            error={nameProblem ?? (taken ? errorMessage(add.error) : null)}
            onChange={(e) => setName(e.target.value)}
            autoFocus
          />
          <div className={styles.actions}>
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={add.isPending}>
              Add passkey
            </Button>
          </div>
        </form>
      </Modal>
    );
  }

  const shown = problem ?? (start.error ? errorMessage(start.error) : null);
  return (
    <Modal open onClose={onClose} width="medium" title="Add a passkey">
      <form className={styles.form} onSubmit={(e) => void verify(e)} noValidate>
        {shown ? <InfoBox variant="error">{shown}</InfoBox> : null}
        {note ? <InfoBox variant="info">{note}</InfoBox> : null}
        <p className={styles.lead}>
          {needsCode
            ? "Confirm it is you: enter your password and a code from your authenticator app. Then your browser asks for your screen lock or security key."
            : "Confirm it is you: enter your password. Then your browser asks for your screen lock or security key."}
        </p>
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoFocus
        />
        {needsCode ? (
          <TextField
            label="Authentication code"
            name="code"
            autoComplete="one-time-code"
            inputMode="numeric"
            placeholder="6-digit code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        ) : null}
        <div className={styles.actions}>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={start.isPending || step === "prompt"}>
            Continue
          </Button>
        </div>
      </form>
    </Modal>
  );
}
