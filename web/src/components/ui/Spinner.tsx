import styles from "./Spinner.module.css";

interface SpinnerProps {
  /** Diameter in px. */
  size?: number;
  /** Announced to assistive technology; omit when the surrounding text already says it. */
  label?: string;
}

export function Spinner({ size = 16, label }: SpinnerProps) {
  return (
    <span
      className={styles.spinner}
      style={{ width: size, height: size }}
      role={label ? "status" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
    />
  );
}
