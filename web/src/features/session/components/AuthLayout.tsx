import type { ReactNode } from "react";

import { config } from "@/config";
import { BrandMark } from "@/components/icons";

import styles from "./AuthLayout.module.css";

interface AuthLayoutProps {
  title: ReactNode;
  subtitle?: ReactNode;
  children: ReactNode;
  /** Wider card, e.g. for the registration form. */
  wide?: boolean;
}

/** The centred card of the signed-out screens (login, registration, third-party sign-in). */
export function AuthLayout({ title, subtitle, children, wide = false }: AuthLayoutProps) {
  const year = new Date().getFullYear();
  return (
    <div className={styles.page}>
      <main className={`${styles.card} ${wide ? styles.wide : ""}`}>
        <div className={styles.brand}>
          <BrandMark />
          <span>{config.productName}</span>
        </div>
        <h1 className={styles.title}>{title}</h1>
        {subtitle ? <p className={styles.subtitle}>{subtitle}</p> : null}
        <div className={styles.content}>{children}</div>
      </main>
      <footer className={styles.footer}>
        <a href={config.termsUrl}>Terms of Service</a>
        <a href={config.privacyUrl}>Privacy Policy</a>
        <span>
          © {year} {config.companyName}
        </span>
      </footer>
    </div>
  );
}
