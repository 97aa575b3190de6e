import {
  type InputHTMLAttributes,
  type ReactNode,
  forwardRef,
  useId,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
} from "react";

import styles from "./TextField.module.css";

interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "id"> {
  label: ReactNode;
  /** Shown under the input and linked to it with aria-describedby. */
  error?: string | null;
  hint?: ReactNode;
  /** Content shown at the right of the label row (e.g. a "Forgot your password?" link). */
  labelAside?: ReactNode;
}

/**
 * A labelled input with its error message. `autoFocus` focuses the input when it mounts, as
 * React does (Preact would only set the `autofocus` attribute, which a browser honours once
 * per page load: the forgot-password step would not get the focus).
 */
export const TextField = forwardRef<HTMLInputElement, TextFieldProps>(function TextField(
  { label, error, hint, labelAside, className, autoFocus, ...rest },
  ref,
) {
  const id = useId();
  const messageId = `${id}-message`;
  const input = useRef<HTMLInputElement>(null);
  useImperativeHandle(ref, () => input.current as HTMLInputElement);
  useLayoutEffect(() => {
    if (autoFocus) input.current?.focus();
  }, [autoFocus]);
  return (
    <div className={`${styles.field} ${className ?? ""}`}>
      <div className={styles.labelRow}>
        <label htmlFor={id} className={styles.label}>
          {label}
        </label>
        {labelAside}
      </div>
      <input
        ref={input}
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
