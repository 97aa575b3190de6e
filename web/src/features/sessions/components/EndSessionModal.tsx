/** Sign out one of the person's other sessions (README "Sessions"): its next request is refused. */
import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { whenText } from "@/components/relative-time";

import { useEndSession } from "../api/sessions";
import { type Session, deviceText } from "../lib/format";

import styles from "./sessions.module.css";

interface EndSessionModalProps {
  session: Session;
  nowMs: number;
  onClose: () => void;
  /** Called once it has ended, with the session's browser and OS ("Chrome 120 on macOS"). */
  onEnded: (device: string) => void;
}

export function EndSessionModal({ session, nowMs, onClose, onEnded }: EndSessionModalProps) {
  const end = useEndSession();
  const device = deviceText(session);
  return (
    <ConfirmModal
      title="Sign out this session"
      confirmLabel="Sign out"
      danger
      width="medium"
      pending={end.isPending}
      error={end.error}
      onClose={onClose}
      onConfirm={() =>
        end.mutate({ params: { path: { session_id: session.id } } }, { onSuccess: () => onEnded(device) })
      }
    >
      <p className={styles.lead}>
        <strong>{device}</strong> ({session.clientAddress}), last active {whenText(session.lastActiveAt, nowMs)},
        will be signed out. Its next step in the console goes to the sign-in page. This browser stays signed in.
      </p>
    </ConfirmModal>
  );
}
