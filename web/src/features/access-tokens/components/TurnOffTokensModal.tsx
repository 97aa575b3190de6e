/** Turning the account's access tokens off (README "Automation"), after a confirmation. */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useSetAccessTokenPolicy } from "../api/access-tokens";

import styles from "./access-tokens.module.css";

export function TurnOffTokensModal({ onClose }: { onClose: () => void }) {
  const setPolicy = useSetAccessTokenPolicy();
  return (
    <ConfirmModal
      title="Turn off access tokens"
      confirmLabel="Turn off"
      danger
      width="medium"
      pending={setPolicy.isPending}
      error={setPolicy.error}
      onClose={onClose}
      onConfirm={() => setPolicy.mutate({ body: { enabled: false } }, { onSuccess: onClose })}
    >
      <p className={styles.lead}>
        Every script, CI job and dashboard using one of this account&apos;s tokens is refused from its next
        request, until an Owner turns tokens on again. No token is revoked.
      </p>
    </ConfirmModal>
  );
}
