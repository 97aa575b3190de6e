import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { InfoBox } from "@/components/ui/InfoBox";
import { config } from "@/config";
import { saveBlob } from "@/lib/download";

import { recoveryCodesText } from "../../lib/two-step";

import styles from "./two-step.module.css";

interface RecoveryCodesProps {
  codes: readonly string[];
  email: string;
}

/**
 * Ten recovery codes, shown once (README "Two-step sign-in"): copy them or download them as a
 * text file; each signs the user in once in place of the authenticator app's code.
 */
export function RecoveryCodes({ codes, email }: RecoveryCodesProps) {
  const text = recoveryCodesText(config.productName, email, codes);
  return (
    <div className={styles.codes}>
      <InfoBox variant="warning" title="Save your recovery codes now">
        They are shown only this once. If you lose your authenticator app, each code signs you in
        once in its place.
      </InfoBox>
      <ol className={styles.codeList} aria-label="Recovery codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <div className={styles.codeActions}>
        <CopyButton value={text} label="Copy recovery codes" />
        <Button
          variant="secondary"
          onClick={() => saveBlob(new Blob([text], { type: "text/plain" }), "recovery-codes.txt")}
        >
          Download
        </Button>
      </div>
    </div>
  );
}
