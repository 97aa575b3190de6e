/**
 * The person's passkeys (docs/users/passkeys.md), oldest first: the name, the kind (built into
 * a device, or a security key), when it was added and when it last signed in ("5 minutes ago",
 * "Never"; the exact time on hover), Rename and Remove.
 */
import { KeyIcon, MonitorIcon } from "@/components/icons";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { exactTime, whenText } from "@/components/relative-time";

import type { Passkey } from "../api/passkeys";

import styles from "./passkeys.module.css";

const KIND_TEXT: Record<string, string> = {
  platform: "This device's screen lock",
  "cross-platform": "Security key or other device",
};

interface PasskeysTableProps {
  passkeys: readonly Passkey[];
  nowMs: number;
  onRename: (passkey: Passkey) => void;
  onRemove: (passkey: Passkey) => void;
}

export function PasskeysTable({ passkeys, nowMs, onRename, onRemove }: PasskeysTableProps) {
  return (
    <table className={`${page.table} ${styles.table}`} aria-label="Passkeys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col" className={styles.timeColumn}>
            Added
          </th>
          <th scope="col" className={styles.timeColumn}>
            Last used
          </th>
          <th scope="col" className={styles.actionsColumn}>
            <span className={styles.srOnly}>Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {passkeys.map((passkey) => {
          const Icon = passkey.authenticatorAttachment === "platform" ? MonitorIcon : KeyIcon;
          const kind = passkey.authenticatorAttachment ? KIND_TEXT[passkey.authenticatorAttachment] : "Passkey";
          return (
            <tr key={passkey.id} data-testid="passkey-row">
              <td>
                <div className={styles.passkey}>
                  <span className={styles.icon}>
                    <Icon width={18} height={18} />
                  </span>
                  <span className={styles.text}>
                    <span className={styles.name}>{passkey.name}</span>
                    <span className={styles.kind}>{kind}</span>
                  </span>
                </div>
              </td>
              <td>
                <span title={exactTime(passkey.createdAt)}>{whenText(passkey.createdAt, nowMs)}</span>
              </td>
              <td>
                {passkey.lastUsedAt ? (
                  <span title={exactTime(passkey.lastUsedAt)}>{whenText(passkey.lastUsedAt, nowMs)}</span>
                ) : (
                  "Never"
                )}
              </td>
              <td className={styles.rowActions}>
                <Button variant="secondary" aria-label={`Rename ${passkey.name}`} onClick={() => onRename(passkey)}>
                  Rename
                </Button>
                <Button
                  variant="secondary"
                  className={styles.remove}
                  aria-label={`Remove ${passkey.name}`}
                  onClick={() => onRemove(passkey)}
                >
                  Remove
                </Button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
