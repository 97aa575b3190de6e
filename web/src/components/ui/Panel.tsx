import type { ReactNode } from "react";

import styles from "./Panel.module.css";

interface PanelProps {
  title: ReactNode;
  description?: ReactNode;
  /** Controls at the right of the header. */
  actions?: ReactNode;
  children: ReactNode;
  /** Accessible name of the region; defaults to the title when it is a string. */
  "aria-label"?: string;
}

/** A titled section card of a console page. */
export function Panel({ title, description, actions, children, ...rest }: PanelProps) {
  return (
    <section
      className={styles.panel}
      aria-label={rest["aria-label"] ?? (typeof title === "string" ? title : undefined)}
    >
      <header className={styles.header}>
        <div>
          <h2>{title}</h2>
          {description ? <p className={styles.description}>{description}</p> : null}
        </div>
        {actions ? <div className={styles.actions}>{actions}</div> : null}
      </header>
      <div className={styles.body}>{children}</div>
    </section>
  );
}
