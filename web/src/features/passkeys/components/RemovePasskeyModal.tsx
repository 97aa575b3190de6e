/** Remove one of the person's passkeys (docs/users/passkeys.md): it no longer signs in. */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { type Passkey, useRemovePasskey } from "../api/passkeys";

import styles from "./passkeys.module.css";

interface RemovePasskeyModalProps {
  passkey: Passkey;
  onClose: () => void;
  onRemoved: (name: string) => void;
}

export function RemovePasskeyModal({ passkey, onClose, onRemoved }: RemovePasskeyModalProps) {
  const remove = useRemovePasskey();
  return (
    <ConfirmModal
      title="Remove this passkey"
      confirmLabel="Remove"
      danger
      width="medium"
      pending={remove.isPending}
      error={remove.error}
      onClose={onClose}
      onConfirm={() =>
        remove.mutate({ params: { path: { passkey_id: passkey.id } } }, { onSuccess: () => onRemoved(passkey.name) })
      }
    >
      <p className={styles.lead}>
        <strong>{passkey.name}</strong> will no longer sign you in. Your password and your other passkeys still do.
        It may stay on the device until you delete it there too.
      </p>
    </ConfirmModal>
  );
}
