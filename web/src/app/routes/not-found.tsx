import { Link } from "@/components/Link";

import styles from "./not-found.module.css";

export function NotFound() {
  return (
    <main className={styles.page}>
      <p className={styles.code}>404</p>
      <h1>Page not found</h1>
      <p className={styles.text}>The page you are looking for does not exist.</p>
      <Link to="/">Go to your account</Link>
    </main>
  );
}
