/**
 * The signed-in person's live sessions (README "Sessions"): this browser's first, marked 'This
 * browser', then the others, the latest active first. Each shows its browser and operating
 * system, how it signed in, the address it came from, when it started and when it was last
 * active ("5 minutes ago", the exact time on hover). Another session has 'Sign out'; this
 * browser's has Logout, the sidebar's sign-out.
 */
import { Link } from "@/components/Link";
import { MonitorIcon, PhoneIcon } from "@/components/icons";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import buttonStyles from "@/components/ui/Button.module.css";
import { exactTime, whenText } from "@/components/relative-time";

import { METHOD_TEXT, type Session, currentFirst, deviceText, isMobile } from "../lib/format";

import styles from "./sessions.module.css";

interface SessionsTableProps {
  sessions: readonly Session[];
  nowMs: number;
  onEnd: (session: Session) => void;
}

export function SessionsTable({ sessions, nowMs, onEnd }: SessionsTableProps) {
  return (
    <table className={`${page.table} ${styles.table}`} aria-label="Sessions">
      <thead>
        <tr>
          <th scope="col">Browser</th>
          <th scope="col" className={styles.methodColumn}>
            Signed in with
          </th>
          <th scope="col" className={styles.addressColumn}>
            Address
          </th>
          <th scope="col" className={styles.timeColumn}>
            Started
          </th>
          <th scope="col" className={styles.timeColumn}>
            Last active
          </th>
          <th scope="col" className={styles.actionsColumn}>
            <span className={styles.srOnly}>Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {currentFirst(sessions).map((session) => (
          <SessionRow key={session.id} session={session} nowMs={nowMs} onEnd={onEnd} />
        ))}
      </tbody>
    </table>
  );
}

function SessionRow({ session, nowMs, onEnd }: { session: Session; nowMs: number; onEnd: (session: Session) => void }) {
  const device = deviceText(session);
  const Icon = isMobile(session.os) ? PhoneIcon : MonitorIcon;
  return (
    <tr data-testid="session-row" data-current={session.current || undefined}>
      <td>
        <div className={styles.device}>
          <span className={styles.deviceIcon}>
            <Icon width={18} height={18} />
          </span>
          <span className={styles.deviceText}>
            <span className={styles.deviceName}>{device}</span>
            {session.current ? <span className={`${page.badge} ${styles.current}`}>This browser</span> : null}
          </span>
        </div>
      </td>
      <td>{METHOD_TEXT[session.method]}</td>
      <td>
        <span className={styles.address}>{session.clientAddress}</span>
      </td>
      <td>
        <span title={exactTime(session.startedAt)}>{whenText(session.startedAt, nowMs)}</span>
      </td>
      <td>
        <span title={exactTime(session.lastActiveAt)}>{whenText(session.lastActiveAt, nowMs)}</span>
      </td>
      <td className={styles.rowActions}>
        {session.current ? (
          <Link to="/logout" className={`${buttonStyles.button} ${buttonStyles.secondary}`}>
            Logout
          </Link>
        ) : (
          <Button
            variant="secondary"
            className={styles.signOut}
            aria-label={`Sign out ${device}`}
            onClick={() => onEnd(session)}
          >
            Sign out
          </Button>
        )}
      </td>
    </tr>
  );
}
