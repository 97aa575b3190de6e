/**
 * Delete confirmation: 'This will delete {name} from your account.' (SPEC 2). For Owners and
 * Admins, who see the access tokens (README "Automation"), it also lists the active tokens the
 * user made, which the removal revokes; an Owner may keep them instead ('Keep their access
 * tokens': `keepAccessTokens=true`), and they go on working with their creator shown as removed.
 */
import { useId, useState } from "react";

import { errorMessage } from "@/api";
import { usePermissions } from "@/api/use-permissions";
import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { Spinner } from "@/components/ui/Spinner";
import { canManageAccessTokens } from "@/lib/permissions";

import { useActiveTokensOf } from "../api/access-tokens";
import { useDeleteUser } from "../api/users";
import type { AccountUser } from "../lib/roles";

import own from "./delete-user.module.css";
import styles from "./users.module.css";

export function DeleteUserModal({ user, onClose }: { user: AccountUser; onClose: () => void }) {
  const remove = useDeleteUser();
  const { role, whyNot } = usePermissions();
  const seesTokens = canManageAccessTokens(role);
  const tokens = useActiveTokensOf(user.id, seesTokens);
  const mayKeep = whyNot("keepAccessTokens") === null;
  const [keep, setKeep] = useState(false);
  const keepId = useId();
  const name = `${user.firstName} ${user.lastName}`;
  const count = tokens.data?.length ?? 0;
  const keeping = keep && mayKeep && count > 0;

  return (
    <ConfirmModal
      title="Delete User"
      confirmLabel="Delete"
      danger
      width={seesTokens ? "medium" : "narrow"}
      pending={remove.isPending}
      error={remove.error}
      onClose={onClose}
      onConfirm={() =>
        remove.mutate(
          {
            params: {
              path: { user_id: user.id },
              ...(keeping ? { query: { keepAccessTokens: true } } : {}),
            },
          },
          { onSuccess: onClose },
        )
      }
    >
      <p className={styles.lead}>This will delete {name} from your account.</p>
      {!seesTokens ? null : tokens.isPending ? (
        <p className={`${styles.lead} ${own.tokensState}`}>
          <Spinner size={14} /> Looking for access tokens {user.firstName} made…
        </p>
      ) : tokens.error ? (
        <p className={`${styles.lead} ${own.tokensState}`} role="alert">
          Their access tokens could not be listed ({errorMessage(tokens.error)}). Any they made are revoked with
          them.
        </p>
      ) : count === 0 ? null : (
        <div className={own.memberTokens} aria-label={`Access tokens ${name} made`} role="group">
          <p className={styles.lead}>
            {keeping
              ? `${count === 1 ? "This access token" : `These ${count} access tokens`} ${user.firstName} made will keep working, with their creator shown as removed:`
              : `${count === 1 ? "The access token" : `The ${count} access tokens`} ${user.firstName} made will be revoked with them:`}
          </p>
          <ul className={own.tokenList}>
            {tokens.data.map((token) => (
              <li key={token.id}>
                <strong>{token.name}</strong> <code className={own.masked}>{token.masked}</code>
                <span className={own.tokenScopes}> · {token.scopes.join(", ")}</span>
              </li>
            ))}
          </ul>
          {mayKeep ? (
            <label className={own.keepTokens} htmlFor={keepId}>
              <input id={keepId} type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} />
              <span>
                <span className={styles.optionLabel}>Keep their access tokens</span>
                <span className={styles.optionDescription}>
                  Scripts using them go on working. Revoke them later in Access tokens.
                </span>
              </span>
            </label>
          ) : (
            <p className={own.hintLine}>Only an Owner can keep them.</p>
          )}
        </div>
      )}
    </ConfirmModal>
  );
}
