/**
 * A modal dialog (SPEC 1 "modal dialogs") on the native `<dialog>` element: `showModal()`
 * gives the backdrop, focus containment, Escape to close and the dialog role; the title
 * names it (aria-labelledby). Widths are SPEC 9's presets; mediumish (650px) is the default.
 */
import { type ReactNode, useEffect, useId, useLayoutEffect, useRef } from "react";

import styles from "./Modal.module.css";

/** SPEC 9: "Modal width presets: narrow 420, medium 520, mediumish 650 (default), wide 800,
 * extra-wide 900, super-wide 1100" (px). */
export const MODAL_WIDTHS = {
  narrow: 420,
  medium: 520,
  mediumish: 650,
  wide: 800,
  "extra-wide": 900,
  "super-wide": 1100,
} as const;

export type ModalWidth = keyof typeof MODAL_WIDTHS;

interface ModalProps {
  open: boolean;
  /** Escape, the backdrop, or the close control; the owner sets `open` to false. */
  onClose: () => void;
  title: ReactNode;
  children?: ReactNode;
  /** Buttons at the bottom, e.g. Confirm and Cancel. */
  footer?: ReactNode;
  width?: ModalWidth;
}

export function Modal({ open, onClose, title, children, footer, width = "mediumish" }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  // Unmounted while open (a dialog rendered only while it is needed): closed first, as a removed
  // dialog would not give the focus back to the control that opened it.
  useLayoutEffect(() => {
    const dialog = ref.current;
    return () => {
      if (dialog?.open) dialog.close();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className={styles.modal}
      style={{ width: `min(${MODAL_WIDTHS[width]}px, calc(100vw - 32px))` }}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault(); // the owner closes it, so `open` stays the truth
        onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose(); // a click on the backdrop
      }}
    >
      {open ? (
        <div className={styles.content}>
          <h2 id={titleId} className={styles.title}>
            {title}
          </h2>
          {children ? <div className={styles.body}>{children}</div> : null}
          {footer ? <div className={styles.footer}>{footer}</div> : null}
        </div>
      ) : null}
    </dialog>
  );
}
