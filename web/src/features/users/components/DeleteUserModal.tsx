/** Delete confirmation: 'This will delete {name} from your account.' (SPEC 2). */
import type { components } from "@/api/schema";
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useDeleteUser } from "../api/users";

import styles from "./users.module.css";

type AccountUser = components["schemas"]["AccountUser"];

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
