import { Button } from "@/components/ui/Button";
import { Modal } from "@/components/ui/Modal";

import { RecoveryCodes } from "./RecoveryCodes";

/** The new recovery codes, once, after 'New recovery codes' was confirmed. */
export function NewRecoveryCodesModal({ codes, email, onClose }: { codes: readonly string[]; email: string; onClose: () => void }) {
  return (
    <Modal open onClose={onClose} width="medium" title="New recovery codes" footer={<Button onClick={onClose}>Done</Button>}>
      <RecoveryCodes codes={codes} email={email} />
    </Modal>
  );
}
