/** SPEC 2: the warning when the latest billing cycle has no requests, with the setup steps. */
import { InfoBox } from "@/components/ui/InfoBox";
import { config } from "@/config";

import page from "@/components/layout/page.module.css";

import styles from "./account.module.css";

/** The key itself is never on screen unless revealed (README "API keys"): the snippet names it and the
 * copy control under Account Configuration copies it. */
export function NoUsageWarning() {
  const pkg = config.productName.toLowerCase();
  const variable = `${config.productName.toUpperCase()}_API_KEY`;
  return (
    <InfoBox variant="warning" title="No usage detected for this account">
      <p>
        Install {config.productName} in your Playwright project, then set the environment variable{" "}
        <code>{variable}</code> to your API key (copy it under Account Configuration below) where
        your tests run:
      </p>
      <pre className={`${page.secret} ${styles.snippet}`}>
        {`npm install --save-dev ${pkg}\nexport ${variable}=<your API key>`}
      </pre>
    </InfoBox>
  );
}
