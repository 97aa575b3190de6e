import type { ReactNode } from "react";

import { ErrorIcon, InfoIcon, SparkIcon, WarningIcon } from "../icons";

import styles from "./InfoBox.module.css";

export type InfoBoxVariant = "info" | "warning" | "error" | "cta";

const ICONS = { info: InfoIcon, warning: WarningIcon, error: ErrorIcon, cta: SparkIcon };

interface InfoBoxProps {
  variant?: InfoBoxVariant;
  title?: ReactNode;
  children?: ReactNode;
  /** An action (link or button) shown at the end of the box. */
  action?: ReactNode;
  className?: string;
}

/** A message box: info, warning, error or call to action (SPEC 1 "info boxes"). */
export function InfoBox({ variant = "info", title, children, action, className }: InfoBoxProps) {
  const Icon = ICONS[variant];
  return (
    <div
      className={`${styles.box} ${styles[variant]} ${className ?? ""}`}
      role={variant === "error" ? "alert" : "status"}
      data-variant={variant}
    >
      <Icon className={styles.icon} width={18} height={18} />
      <div className={styles.body}>
        {title ? <p className={styles.title}>{title}</p> : null}
        {children ? <div className={styles.text}>{children}</div> : null}
      </div>
      {action ? <div className={styles.action}>{action}</div> : null}
    </div>
  );
}
