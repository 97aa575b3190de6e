/** An Owner's or Admin's reset of another user's two-step sign-in (README "Two-step sign-in"). */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useResetTwoStep } from "../api/users";
import type { AccountUser } from "../lib/roles";

import styles from "./users.module.css";

export function ResetTwoStepModal({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const reset = useResetTwoStep();
  const name = `${user.firstName} ${user.lastName}`;
  return (
    <ConfirmModal
      title="Reset two-step sign-in"
      confirmLabel="Reset"
      danger
      width="medium"
      pending={reset.isPending}
      error={reset.error}
      onClose={onClose}
      onConfirm={() => reset.mutate({ params: { path: { user_id: user.id } } }, { onSuccess: onClose })}
    >
      <p className={styles.lead}>
        {name} is signed out everywhere, and their authenticator app and recovery codes stop
        working. They set up two-step sign-in again at their next sign-in.
      </p>
    </ConfirmModal>
  );
}
