/** Delete confirmation: 'This will delete {name} from your account.' (SPEC 2). */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useDeleteUser } from "../api/users";
import type { AccountUser } from "../lib/roles";

import styles from "./users.module.css";

export function DeleteUserModal({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const remove = useDeleteUser();
  const name = `${user.firstName} ${user.lastName}`;
  return (
    <ConfirmModal
      title="Delete User"
      confirmLabel="Delete"
      danger
      pending={remove.isPending}
      error={remove.error}
      onClose={onClose}
      onConfirm={() => remove.mutate({ params: { path: { user_id: user.id } } }, { onSuccess: onClose })}
    >
      <p className={styles.lead}>This will delete {name} from your account.</p>
    </ConfirmModal>
  );
}
