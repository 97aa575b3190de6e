/** An Owner's or Admin's "Sign out everywhere" of another user (README "Sessions"). */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useEndMemberSessions } from "../api/users";
import type { AccountUser } from "../lib/roles";

import styles from "./users.module.css";

export function SignOutEverywhereModal({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const end = useEndMemberSessions();
  const name = `${user.firstName} ${user.lastName}`;
  return (
    <ConfirmModal
      title="Sign out everywhere"
      confirmLabel="Sign out"
      danger
      width="medium"
      pending={end.isPending}
      error={end.error}
      onClose={onClose}
      onConfirm={() => end.mutate({ params: { path: { user_id: user.id } } }, { onSuccess: onClose })}
    >
      <p className={styles.lead}>
        {name} is signed out of every browser and device at once. They can sign in again.
      </p>
    </ConfirmModal>
  );
}
