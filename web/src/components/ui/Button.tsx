import { type ButtonHTMLAttributes, type ReactNode, forwardRef, useEffect, useState } from "react";

import { CheckIcon } from "../icons";

import styles from "./Button.module.css";
import { Spinner } from "./Spinner";

export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: "md" | "lg";
  /** Shows a spinner and blocks clicks while true (SPEC 4: "Buttons show a loading spinner"). */
  loading?: boolean;
  /**
   * Becoming true shows a brief success check for `successDurationMs` (SPEC 4: "optionally a
   * brief success check (duration configurable, default 0)"); 0 shows none.
   */
  success?: boolean;
  successDurationMs?: number;
  /** Stretches the button to its container's width. */
  block?: boolean;
  icon?: ReactNode;
}

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  {
    variant = "primary",
    size = "md",
    loading = false,
    success = false,
    successDurationMs = 0,
    block = false,
    icon,
    type = "button",
    disabled,
    className,
    children,
    ...rest
  },
  ref,
) {
  const [prevSuccess, setPrevSuccess] = useState(success);
  const [showCheck, setShowCheck] = useState(false);
  if (success !== prevSuccess) {
    setPrevSuccess(success);
    setShowCheck(success && successDurationMs > 0);
  }
  useEffect(() => {
    if (!showCheck) return undefined;
    const timer = window.setTimeout(() => setShowCheck(false), successDurationMs);
    return () => window.clearTimeout(timer);
  }, [showCheck, successDurationMs]);

  const classes = [
    styles.button,
    styles[variant],
    size === "lg" ? styles.lg : "",
    block ? styles.block : "",
    className ?? "",
  ].join(" ");

  return (
    <button
      ref={ref}
      type={type}
      className={classes}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      {...rest}
    >
      {loading ? (
        <Spinner size={14} />
      ) : showCheck ? (
        <CheckIcon className={styles.check} data-testid="button-success" />
      ) : (
        icon
      )}
      <span>{children}</span>
    </button>
  );
});
