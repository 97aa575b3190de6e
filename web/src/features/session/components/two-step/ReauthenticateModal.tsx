import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { TextField } from "@/components/ui/TextField";

import { CODE_REQUIRED } from "../../lib/two-step";

import { AuthenticationCodeField } from "./AuthenticationCodeField";
import styles from "./two-step.module.css";

interface ReauthenticateModalProps {
  title: string;
  /** What happens once both factors are proven. */
  description: string;
  confirmLabel: string;
  danger?: boolean;
  pending: boolean;
  error: unknown;
  onConfirm: (body: { password: string; code: string }) => void;
  onClose: () => void;
}

/**
 * Both factors again, before two-step sign-in is turned off or its recovery codes are
 * replaced (README "Two-step sign-in"): the password and a current code of the app.
 */
export function ReauthenticateModal({
  title,
  description,
  confirmLabel,
  danger = false,
  pending,
  error,
  onConfirm,
  onClose,
}: ReauthenticateModalProps) {
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState<string | null>(null);

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const missing = !password ? "Password is required" : !code.trim() ? CODE_REQUIRED : null;
    setProblem(missing);
    if (!missing) onConfirm({ password, code: code.trim() });
  }

  const shown = problem ?? (error ? errorMessage(error) : null);
  return (
    <Modal open onClose={onClose} width="medium" title={title}>
      <form className={styles.setup} onSubmit={handleSubmit} noValidate>
        {shown ? <InfoBox variant="error">{shown}</InfoBox> : null}
        <p className={styles.lead}>{description}</p>
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          autoFocus
        />
        <AuthenticationCodeField value={code} onChange={setCode} />
        <div className={styles.modalActions}>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" variant={danger ? "danger" : "primary"} loading={pending}>
            {confirmLabel}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
