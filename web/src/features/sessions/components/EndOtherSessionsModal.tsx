/** Sign out every session but this browser's (README "Sessions"), for a lost or shared device. */
import { ConfirmModal } from "@/components/ui/ConfirmModal";

import { useEndOtherSessions } from "../api/sessions";
import { endOthersText } from "../lib/format";

import styles from "./sessions.module.css";

interface EndOtherSessionsModalProps {
  /** How many other sessions the list shows. */
  others: number;
  onClose: () => void;
  /** Called once they have ended, with how many the API ended. */
  onEnded: (ended: number) => void;
}

export function EndOtherSessionsModal({ others, onClose, onEnded }: EndOtherSessionsModalProps) {
  const end = useEndOtherSessions();
  return (
    <ConfirmModal
      title="Sign out all other sessions"
      confirmLabel="Sign out other sessions"
      danger
      width="medium"
      pending={end.isPending}
      error={end.error}
      onClose={onClose}
      onConfirm={() => end.mutate({}, { onSuccess: ({ ended }) => onEnded(ended) })}
    >
      <p className={styles.lead}>{endOthersText(others)} This browser stays signed in.</p>
    </ConfirmModal>
  );
}
