/** Revoke a Pending or Expired invitation, after a confirmation (README "Roles and invitations"). */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useRevokeInvitation } from "../api/users";
import type { AccountUser } from "../lib/roles";

import styles from "./users.module.css";

export function RevokeInvitationModal({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const revoke = useRevokeInvitation();
  return (
    <ConfirmModal
      title="Revoke Invitation"
      confirmLabel="Revoke"
      danger
      pending={revoke.isPending}
      error={revoke.error}
      onClose={onClose}
      onConfirm={() => revoke.mutate({ params: { path: { user_id: user.id } } }, { onSuccess: onClose })}
    >
      <p className={styles.lead}>
        {user.firstName} {user.lastName} ({user.email}) will no longer be able to sign in with
        the invitation and is removed from your account.
      </p>
    </ConfirmModal>
  );
}
