/** Delete confirmation: 'This will delete {name} from your account.' (SPEC 2). */
import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";

import { useDeleteUser } from "../api/users";

import styles from "./users.module.css";

type AccountUser = components["schemas"]["AccountUser"];

export function DeleteUserModal({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const remove = useDeleteUser();
  const name = `${user.firstName} ${user.lastName}`;
  return (
    <Modal
      open
      onClose={onClose}
      width="narrow"
      title="Delete User"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button
            variant="danger"
            loading={remove.isPending}
            onClick={() =>
              remove.mutate({ params: { path: { user_id: user.id } } }, { onSuccess: onClose })
            }
          >
            Delete
          </Button>
        </>
      }
    >
      {remove.error ? <InfoBox variant="error">{errorMessage(remove.error)}</InfoBox> : null}
      <p className={styles.lead}>This will delete {name} from your account.</p>
    </Modal>
  );
}
