/**
 * The account's access tokens (README "Automation"), newest first: each one's name and masked
 * value, its scopes, when and by whom it was made (its creator marked "removed" once they left
 * the account), the last day it works, its last use (when, from which address; "Never"), its
 * status, and Revoke while it is active. Scopes show as the API sorts them.
 */
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { exactTime, whenText } from "@/components/relative-time";
import { Button } from "@/components/ui/Button";
import { dayLabel } from "@/lib/dates";

import { creator, lastDay } from "../lib/format";

import styles from "./access-tokens.module.css";

export type Token = components["schemas"]["AccessTokenView"];

const STATUS_TEXT: Record<Token["status"], string> = {
  active: "Active",
  expired: "Expired",
  revoked: "Revoked",
};

interface TokensTableProps {
  tokens: readonly Token[];
  nowMs: number;
  onRevoke: (token: Token) => void;
}

export function TokensTable({ tokens, nowMs, onRevoke }: TokensTableProps) {
  return (
    <table className={`${page.table} ${styles.table}`} aria-label="Access tokens">
      <thead>
        <tr>
          <th scope="col" className={styles.tokenColumn}>
            Token
          </th>
          <th scope="col" className={styles.scopesColumn}>
            Scopes
          </th>
          <th scope="col">Created</th>
          <th scope="col">Expires</th>
          <th scope="col">Last used</th>
          <th scope="col" className={styles.statusColumn}>
            Status
          </th>
          <th scope="col" className={styles.actionsColumn}>
            <span className={styles.srOnly}>Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {tokens.map((token) => (
          <TokenRow key={token.id} token={token} nowMs={nowMs} onRevoke={onRevoke} />
        ))}
      </tbody>
    </table>
  );
}

function TokenRow({ token, nowMs, onRevoke }: { token: Token; nowMs: number; onRevoke: (token: Token) => void }) {
  const by = creator(token.createdBy);
  const works = dayLabel(lastDay(token.expiresAt));
  return (
    <tr className={token.status === "active" ? undefined : styles.inactive} data-testid="access-token-row">
      <td>
        <span className={styles.name}>{token.name}</span>
        <span className={`${styles.secondary} ${styles.masked}`}>{token.masked}</span>
      </td>
      <td>
        <ul className={styles.scopes} aria-label={`Scopes of ${token.name}`}>
          {token.scopes.map((scope) => (
            <li key={scope} className={styles.scope}>
              {scope}
            </li>
          ))}
        </ul>
      </td>
      <td>
        <span className={styles.day} title={exactTime(token.createdAt)}>
          {dayLabel(token.createdAt)}
        </span>
        <span className={styles.secondary} title={by.email || undefined}>
          by {by.name}
          {token.creatorRemoved ? (
            <span className={`${page.badge} ${styles.removed}`} title="No longer a user of this account">
              removed
            </span>
          ) : null}
        </span>
      </td>
      <td>
        <span className={styles.day} title={`Works through ${works}, to the end of the day (UTC)`}>
          {works}
        </span>
        {token.status === "revoked" && token.revokedAt ? (
          <span className={styles.secondary}>revoked {dayLabel(token.revokedAt)}</span>
        ) : null}
      </td>
      <td data-testid="access-token-last-used">
        {token.lastUsedAt ? (
          <>
            <span title={exactTime(token.lastUsedAt)}>{whenText(token.lastUsedAt, nowMs)}</span>
            {token.lastUsedAddress ? (
              <span className={`${styles.secondary} ${styles.masked}`}>{token.lastUsedAddress}</span>
            ) : null}
          </>
        ) : (
          "Never"
        )}
      </td>
      <td>
        <span className={`${page.badge} ${styles.status}`} data-status={token.status}>
          {STATUS_TEXT[token.status]}
        </span>
      </td>
      <td className={styles.rowActions}>
        {token.status === "active" ? (
          <Button
            variant="secondary"
            className={styles.revoke}
            aria-label={`Revoke ${token.name}`}
            onClick={() => onRevoke(token)}
          >
            Revoke
          </Button>
        ) : null}
      </td>
    </tr>
  );
}
