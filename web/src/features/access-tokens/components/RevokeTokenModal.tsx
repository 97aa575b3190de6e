/** Revoke an access token (README "Automation"): its next request is refused; it stays listed. */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useRevokeAccessToken } from "../api/access-tokens";

import styles from "./access-tokens.module.css";
import type { Token } from "./TokensTable";

export function RevokeTokenModal({ token, onClose }: { token: Token; onClose: () => void }) {
  const revoke = useRevokeAccessToken();
  return (
    <ConfirmModal
      title="Revoke access token"
      confirmLabel="Revoke"
      danger
      width="medium"
      pending={revoke.isPending}
      error={revoke.error}
      onClose={onClose}
      onConfirm={() => revoke.mutate({ params: { path: { token_id: token.id } } }, { onSuccess: onClose })}
    >
      <p className={styles.lead}>
        Every request made with <strong>{token.name}</strong> ({token.masked}) will be refused from now on.
        This cannot be undone: a script that still needs access needs a new token.
      </p>
    </ConfirmModal>
  );
}
