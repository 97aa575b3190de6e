/**
 * Why a control is disabled, as a tooltip (README "Roles and invitations": controls disabled with a
 * tooltip saying which role is needed; SPEC 5's tooltips of a disabled Invite or Google SSO). A disabled
 * button gets neither hover nor focus, so the tooltip sits on a focusable wrapper: the reason
 * shows on hover and to keyboard users. With no reason the control renders as it is.
 *
 * The caller disables the control itself (`disabled={reason !== null}`, or for another reason
 * of its own as well).
 */
import type { ReactElement } from "react";

import { Tooltip, type TooltipAlign } from "./Tooltip";

import styles from "./Tooltip.module.css";

interface DisabledReasonProps {
  reason: string | null;
  children: ReactElement;
  side?: "top" | "bottom";
  align?: TooltipAlign;
  /** The control takes its container's full width (a row of a list). */
  block?: boolean;
}

export function DisabledReason({ reason, children, side, align, block = false }: DisabledReasonProps) {
  if (!reason) return children;
  return (
    <Tooltip content={reason} side={side} align={align} block={block}>
      <span tabIndex={0} className={block ? styles.blockTrigger : styles.trigger}>
        {children}
      </span>
    </Tooltip>
  );
}
