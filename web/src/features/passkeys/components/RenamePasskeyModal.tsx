/** Rename one of the person's passkeys (docs/users/passkeys.md): 1 to 60 characters, unique. */
import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { TextField } from "@/components/ui/TextField";

import { type Passkey, useRenamePasskey } from "../api/passkeys";

import styles from "./passkeys.module.css";

export const NAME_REQUIRED = "Give the passkey a name";
export const NAME_MAX_LENGTH = 60;

interface RenamePasskeyModalProps {
  passkey: Passkey;
  onClose: () => void;
  onRenamed: (name: string) => void;
}

export function RenamePasskeyModal({ passkey, onClose, onRenamed }: RenamePasskeyModalProps) {
  const rename = useRenamePasskey();
  const [name, setName] = useState(passkey.name);
  const [problem, setProblem] = useState<string | null>(null);

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = name.trim();
    setProblem(trimmed ? null : NAME_REQUIRED);
    if (!trimmed) return;
    rename.mutate(
      { params: { path: { passkey_id: passkey.id } }, body: { name: trimmed } },
      { onSuccess: (data) => onRenamed(data.passkey.name) },
    );
  }

  return (
    <Modal open onClose={onClose} width="medium" title="Rename passkey">
      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        {rename.error ? <InfoBox variant="error">{errorMessage(rename.error)}</InfoBox> : null}
        <TextField
          label="Name"
          name="name"
          maxLength={NAME_MAX_LENGTH}
          value={name}
          error={problem}
          onChange={(e) => setName(e.target.value)}
          autoFocus
        />
        <div className={styles.actions}>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={rename.isPending}>
            Save
          </Button>
        </div>
      </form>
    </Modal>
  );
}
