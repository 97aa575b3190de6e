import { type InputHTMLAttributes, type ReactNode, forwardRef, useId } from "react";

import styles from "./TextField.module.css";

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: ReactNode;
  /** Shown under the input and linked to it with aria-describedby. */
  error?: string | null;
  hint?: ReactNode;
  /** Content shown at the right of the label row (e.g. a "Forgot your password?" link). */
  labelAside?: ReactNode;
}

/** A labelled input with its error message. */
export const TextField = forwardRef<HTMLInputElement, TextFieldProps>(function TextField(
  { label, error, hint, labelAside, className, ...rest },
  ref,
) {
  const id = useId();
  const messageId = `${id}-message`;
  return (
    <div className={`${styles.field} ${className ?? ""}`}>
      <div className={styles.labelRow}>
        <label htmlFor={id} className={styles.label}>
          {label}
        </label>
        {labelAside}
      </div>
      <input
        ref={ref}
        id={id}
        className={styles.input}
        aria-invalid={error ? true : undefined}
        aria-describedby={error || hint ? messageId : undefined}
        {...rest}
      />
      {error ? (
        <p id={messageId} className={styles.error}>
          {error}
        </p>
      ) : hint ? (
        <p id={messageId} className={styles.hint}>
          {hint}
        </p>
      ) : null}
    </div>
  );
});
