import styles from "./forms.module.css";

/** The 'Back to sign in' link under the reset and new-password forms. */
export function BackToLogin({ onClick }: { onClick: () => void }) {
  return (
    <p className={styles.footnote}>
      <button type="button" className={styles.linkButton} onClick={onClick}>
        Back to sign in
      </button>
    </p>
  );
}
