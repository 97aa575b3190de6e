/**
 * A confirmation dialog: what will happen, Cancel, and the action's button (a spinner while it
 * runs); the error of a failed attempt shows above the text (SPEC 1 "modal dialogs").
 */
import type { ReactNode } from "react";

import { errorMessage } from "@/api";

import { Button } from "./Button";
import { InfoBox } from "./InfoBox";
import { Modal, type ModalWidth } from "./Modal";

interface ConfirmModalProps {
  title: string;
  /** The action's button text, e.g. 'Delete', 'Confirm'. */
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  pending: boolean;
  error?: unknown;
  danger?: boolean;
  width?: ModalWidth;
  children: ReactNode;
}

export function ConfirmModal({
  title,
  confirmLabel,
  onConfirm,
  onClose,
  pending,
  error,
  danger = false,
  width = "narrow",
  children,
}: ConfirmModalProps) {
  return (
    <Modal
      open
      onClose={onClose}
      width={width}
      title={title}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button variant={danger ? "danger" : "primary"} loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {error ? <InfoBox variant="error">{errorMessage(error)}</InfoBox> : null}
      {children}
    </Modal>
  );
}
