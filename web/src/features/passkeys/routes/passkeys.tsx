/**
 * /passkeys, 'Passkeys' (docs/users/passkeys.md), for every signed-in person, from the account
 * menu: their passkeys with when each was added and last signed in, Rename and Remove (after a
 * confirmation), and 'Add a passkey'. Who signs in with Google, GitHub or SAML is told why
 * passkeys are not for them instead of the button, as is a browser without WebAuthn.
 */
import { Suspense, useState } from "react";

import { errorMessage } from "@/api";
import { ExternalIcon } from "@/components/icons";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { preloaded } from "@/components/preloaded";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { Spinner } from "@/components/ui/Spinner";
import { useNow } from "@/components/relative-time";
import { config } from "@/config";
import { handbookPage } from "@/lib/handbook";

import { type Passkey, usePasskeys, useTwoStepState } from "../api/passkeys";
import { PasskeysTable } from "../components/PasskeysTable";
import styles from "../components/passkeys.module.css";

// The dialogs, shown on request: chunks of their own, fetched as this module runs, so the
// page's first paint does not wait for them (the first-load budget, README "Performance").
const AddPasskeyModal = preloaded(() => import("../components/AddPasskeyModal").then((m) => m.AddPasskeyModal));
const RenamePasskeyModal = preloaded(() =>
  import("../components/RenamePasskeyModal").then((m) => m.RenamePasskeyModal),
);
const RemovePasskeyModal = preloaded(() =>
  import("../components/RemovePasskeyModal").then((m) => m.RemovePasskeyModal),
);

export const FEDERATED =
  "You sign in with Google, GitHub or SAML single sign-on: your identity provider protects your sign-in, so passkeys are not used for your account.";
export const UNSUPPORTED = "This browser does not support passkeys. Open the console in a current browser to add one.";

const DESCRIPTION = (
  <>
    Sign in with your device&apos;s screen lock or a security key instead of your password.{" "}
    <a
      className={styles.docsLink}
      href={handbookPage(config.docsUrl, "users/passkeys")}
      target="_blank"
      rel="noreferrer"
    >
      How passkeys work
      <ExternalIcon />
    </a>
  </>
);

type Dialog = { kind: "add" } | { kind: "rename"; passkey: Passkey } | { kind: "remove"; passkey: Passkey };

export function Component() {
  const { data, error } = usePasskeys();
  const twoStep = useTwoStepState().data?.twoStepSignIn;
  const now = useNow(60_000);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // WebAuthn's own check, not lib/webauthn's: that module loads with the Add dialog, so the
  // page's first load (and the app entry's list of its chunks) stays small (README "Performance").
  const supported = typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
  const unavailable = twoStep && !twoStep.available ? FEDERATED : !supported ? UNSUPPORTED : null;

  const open = (next: Dialog) => {
    setNotice(null);
    setDialog(next);
  };
  const done = (text: string) => {
    setDialog(null);
    setNotice(text);
  };

  return (
    <>
      <PageHeader
        title="Passkeys"
        description={DESCRIPTION}
        actions={
          twoStep && !unavailable ? <Button onClick={() => open({ kind: "add" })}>Add a passkey</Button> : null
        }
      />
      {error ? (
        <InfoBox variant="error" title="Your passkeys could not be loaded">
          {errorMessage(error)}
        </InfoBox>
      ) : !data ? (
        <div className={styles.state}>
          <Spinner size={16} /> Loading your passkeys…
        </div>
      ) : (
        <div className={page.stack}>
          {unavailable ? <InfoBox variant="info" title="Passkeys are not available">{unavailable}</InfoBox> : null}
          {notice ? <InfoBox variant="info" title={notice} /> : null}
          <Panel title="Your passkeys" description="Each one signs you in on the device or key that holds it.">
            {data.passkeys.length ? (
              <PasskeysTable
                passkeys={data.passkeys}
                nowMs={now}
                onRename={(passkey) => open({ kind: "rename", passkey })}
                onRemove={(passkey) => open({ kind: "remove", passkey })}
              />
            ) : (
              <p className={styles.empty}>You have no passkeys yet.</p>
            )}
          </Panel>
        </div>
      )}
      <Suspense fallback={null}>
        {dialog?.kind === "add" ? (
          <AddPasskeyModal
            twoStepOn={!!twoStep?.enabled}
            onClose={() => setDialog(null)}
            onAdded={(passkey) => done(`Added ${passkey.name}. You can sign in with it now.`)}
          />
        ) : null}
        {dialog?.kind === "rename" ? (
          <RenamePasskeyModal
            passkey={dialog.passkey}
            onClose={() => setDialog(null)}
            onRenamed={(name) => done(`Renamed to ${name}.`)}
          />
        ) : null}
        {dialog?.kind === "remove" ? (
          <RemovePasskeyModal
            passkey={dialog.passkey}
            onClose={() => setDialog(null)}
            onRemoved={(name) => done(`Removed ${name}.`)}
          />
        ) : null}
      </Suspense>
    </>
  );
}
