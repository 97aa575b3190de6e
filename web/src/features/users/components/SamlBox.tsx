/**
 * The SAML connection inside the Security section (README "SAML single sign-on"): Not set up,
 * with 'Set up SAML'; or Connected, with the identity provider as its metadata describes it,
 * the domains Cognito routes to it (and those it cannot: longer than 40 characters or past
 * 50, which still sign in by the connection's name), where its metadata comes from, when its
 * signing certificate expires (a warning within 30 days), whether it links existing users
 * (README "Security model", "Who someone is": a connection an Admin made before connecting
 * was an Owner's waits for an Owner's confirmation, with a button for it), the console's
 * signing certificate when the identity provider wants signed requests, the last test
 * sign-in, and Test sign-in, Update and Remove. Changing it is an Owner's (the test sign-in
 * an Admin's too); it waits for a verified domain.
 *
 * Test sign-in opens a window on the hosted UI for the connection; the identity provider's
 * answer comes back to /oauth/saml-test in that window, which hands the code to this window
 * (lib/saml-test-message.ts) to be checked by the API: what was sent, or what was wrong.
 */
import { useEffect, useRef, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { CopyButton } from "@/components/ui/CopyButton";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { dayLabel } from "@/lib/dates";
import { samlTestMessage, samlTestRedirectUri } from "@/lib/saml-test-message";

import {
  useConfirmSamlLinking,
  useFinishSamlTest,
  useRemoveSaml,
  useSamlSettings,
  useStartSamlTest,
} from "../api/saml";
import { lastCheckLabel } from "../lib/domains";
import {
  LINKING_UNCONFIRMED_TEXT,
  SIGNING_CERTIFICATE_NOTE,
  type SamlConnection,
  certificateWarning,
  confirmLinkingText,
  linkingSummary,
  testSummary,
} from "../lib/saml";

import { SamlSetupModal } from "./SamlSetupModal";
import domainStyles from "./domains.module.css";
import styles from "./saml.module.css";

interface Props {
  /** Why the current user cannot change it (their role, no verified domain), or null. */
  blocked: string | null;
  /** Why the current user cannot run a test sign-in, or null. */
  testBlocked: string | null;
  /** The set-up modal is open (also when the SAML option is chosen before any set-up). */
  settingUp: boolean;
  onSetUp: (open: boolean) => void;
  /** The current user signed in through the connection: removing it signs them out. */
  signedInThroughIt: boolean;
}

export function SamlBox({ blocked, testBlocked, settingUp, onSetUp, signedInThroughIt }: Props) {
  const { data } = useSamlSettings();
  const [removing, setRemoving] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveSaml();
  const confirmLinking = useConfirmSamlLinking();
  const connection = data?.connection ?? null;

  return (
    <section className={styles.box} aria-labelledby="saml-title">
      <div className={styles.header}>
        <div className={styles.titleLine}>
          <h3 id="saml-title" className={domainStyles.title}>
            SAML single sign-on
          </h3>
          <span className={domainStyles.state} data-state={connection ? "Connected" : "Not set up"}>
            {connection ? "Connected" : "Not set up"}
          </span>
        </div>
        {connection ? null : (
          <DisabledReason reason={blocked} align="end">
            <Button disabled={blocked !== null} onClick={() => onSetUp(true)}>
              Set up SAML
            </Button>
          </DisabledReason>
        )}
      </div>
      {connection ? (
        <Connected
          connection={connection}
          blocked={blocked}
          testBlocked={testBlocked}
          onUpdate={() => onSetUp(true)}
          onRemove={() => setRemoving(true)}
          onConfirm={() => setConfirming(true)}
        />
      ) : (
        <p className={domainStyles.lead}>
          Sign your company&apos;s people in through its identity provider (Okta, Microsoft Entra ID, Google
          Workspace...). People at your verified domains join this account at their first sign-in.
        </p>
      )}
      {settingUp && data ? (
        <SamlSetupModal serviceProvider={data.serviceProvider} connection={connection} onClose={() => onSetUp(false)} />
      ) : null}
      {confirming && connection ? (
        <ConfirmModal
          title="Let this identity provider sign in existing users"
          confirmLabel="Confirm"
          width="medium"
          pending={confirmLinking.isPending}
          error={confirmLinking.error}
          onClose={() => {
            setConfirming(false);
            confirmLinking.reset();
          }}
          onConfirm={() => confirmLinking.mutate({}, { onSuccess: () => setConfirming(false) })}
        >
          <p className={domainStyles.lead}>{confirmLinkingText(connection)}</p>
        </ConfirmModal>
      ) : null}
      {removing ? (
        <ConfirmModal
          title="Remove SAML single sign-on"
          confirmLabel="Remove"
          danger
          width="medium"
          pending={remove.isPending}
          error={remove.error}
          onClose={() => {
            setRemoving(false);
            remove.reset();
          }}
          onConfirm={() => remove.mutate({}, { onSuccess: () => setRemoving(false) })}
        >
          <p className={domainStyles.lead}>
            People can no longer sign in through your identity provider. Everyone signs in with their
            email and password again; those who only used single sign-on set a password with “Forgot your
            password?” on the sign-in page.
          </p>
          {signedInThroughIt ? (
            <p className={domainStyles.lead}>
              You signed in through it: you will be signed out, and sign in with your email and password.
            </p>
          ) : null}
        </ConfirmModal>
      ) : null}
    </section>
  );
}

interface ConnectedProps {
  connection: SamlConnection;
  blocked: string | null;
  testBlocked: string | null;
  onUpdate: () => void;
  onRemove: () => void;
  onConfirm: () => void;
}

function Connected({ connection, blocked, testBlocked, onUpdate, onRemove, onConfirm }: ConnectedProps) {
  const test = useSamlTest();
  const warning = certificateWarning(connection);
  const last = connection.lastTest;
  return (
    <>
      <dl className={styles.facts}>
        <dt>Identity provider</dt>
        <dd>{connection.idpEntityId}</dd>
        <dt>Sign-in URL</dt>
        <dd>{connection.ssoUrl}</dd>
        <dt>Domains</dt>
        <dd>{connection.domains.length ? connection.domains.join(", ") : "None: verify a domain below"}</dd>
        <dt>Metadata</dt>
        <dd>
          {connection.metadataUrl ? `${connection.metadataUrl} (fetched daily)` : "Uploaded XML file"} ·{" "}
          {lastCheckLabel(connection.metadataCheckedAt)}
        </dd>
        <dt>Signing certificate</dt>
        <dd>Expires {dayLabel(connection.certificateExpiresAt)}</dd>
        <dt>Existing users</dt>
        <dd>{linkingSummary(connection)}</dd>
        <dt>Sign-in requests</dt>
        <dd>{connection.signsRequests ? "Signed (RSA-SHA256), as your identity provider asks" : "Not signed"}</dd>
      </dl>
      {connection.linkingConfirmedAt ? null : (
        <InfoBox
          variant="warning"
          title="Existing users cannot sign in through it yet"
          action={
            <DisabledReason reason={blocked} align="end">
              <Button variant="secondary" disabled={blocked !== null} onClick={onConfirm}>
                Confirm identity provider
              </Button>
            </DisabledReason>
          }
        >
          {LINKING_UNCONFIRMED_TEXT}
        </InfoBox>
      )}
      {connection.signsRequests ? <SigningCertificate certificate={connection.signingCertificate} /> : null}
      {warning ? <InfoBox variant="warning">{warning}</InfoBox> : null}
      {connection.metadataError ? (
        <InfoBox variant="warning" title="The daily metadata refresh failed">
          {connection.metadataError} The connection keeps the metadata it had.
        </InfoBox>
      ) : null}
      {connection.identifiersError ? (
        <InfoBox variant="warning" title="The domains could not be sent to Cognito">
          {connection.identifiersError}
        </InfoBox>
      ) : null}
      {connection.identifierNotices.length ? (
        <InfoBox variant="info" title="Domains Cognito does not route by itself">
          <ul>
            {connection.identifierNotices.map((notice) => (
              <li key={notice}>{notice}</li>
            ))}
          </ul>
        </InfoBox>
      ) : null}
      {test.error ? (
        <InfoBox variant="error" title="Test sign-in">
          {test.error}
        </InfoBox>
      ) : last ? (
        <InfoBox variant={last.problem ? "error" : "info"} title="Last test sign-in">
          {testSummary(last)}
        </InfoBox>
      ) : null}
      <div className={styles.actions}>
        <DisabledReason reason={testBlocked}>
          <Button variant="secondary" disabled={testBlocked !== null} loading={test.running} onClick={test.run}>
            Test sign-in
          </Button>
        </DisabledReason>
        <DisabledReason reason={blocked}>
          <Button variant="secondary" disabled={blocked !== null} onClick={onUpdate}>
            Update metadata
          </Button>
        </DisabledReason>
        <DisabledReason reason={blocked}>
          <Button variant="ghost" disabled={blocked !== null} onClick={onRemove}>
            Remove
          </Button>
        </DisabledReason>
      </div>
    </>
  );
}

/** The console's signing certificate, for an identity provider that wants signed requests. */
function SigningCertificate({ certificate }: { certificate: string | null }) {
  return (
    <section className={styles.certificate} aria-labelledby="saml-signing-certificate">
      <h4 id="saml-signing-certificate" className={styles.heading}>
        The console&apos;s signing certificate
      </h4>
      <p className={domainStyles.lead}>{SIGNING_CERTIFICATE_NOTE}</p>
      {certificate ? (
        <div className={styles.certificateValue}>
          {/* Focusable: it scrolls, and keyboard users scroll it too. */}
          <pre className={styles.value} aria-label="Signing certificate (PEM)" tabIndex={0}>
            {certificate}
          </pre>
          <CopyButton value={certificate} label="Copy signing certificate" />
        </div>
      ) : (
        <InfoBox variant="warning">The signing certificate could not be read just now. Reload the page to try again.</InfoBox>
      )}
    </section>
  );
}

/** The test sign-in: a window on the hosted UI, and the result its code brings back. */
function useSamlTest() {
  const start = useStartSamlTest();
  const finish = useFinishSamlTest();
  const [error, setError] = useState<string | null>(null);
  const popup = useRef<Window | null>(null);
  const { mutate: check } = finish; // stable across renders

  useEffect(() => {
    function onMessage(event: MessageEvent) {
      const message = samlTestMessage(event);
      if (!message || event.source !== popup.current) return;
      popup.current = null;
      if ("error" in message) {
        setError(message.error);
        return;
      }
      check(
        { body: { code: message.code, state: message.state, redirectUri: samlTestRedirectUri() } },
        { onError: (e) => setError(errorMessage(e)) },
      );
    }
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [check]);

  const run = () => {
    setError(null);
    // Opened in the click itself (popup blockers), then sent to the hosted UI.
    const opened = window.open("", "saml-test", "popup,width=560,height=720");
    popup.current = opened;
    start.mutate(
      { body: { redirectUri: samlTestRedirectUri() } },
      {
        onSuccess: ({ authorizeUrl }) => {
          if (opened) opened.location.href = authorizeUrl;
          else setError("Allow pop-up windows for this site to run the test sign-in.");
        },
        onError: (e) => {
          opened?.close();
          setError(errorMessage(e));
        },
      },
    );
  };

  return { run, error, running: start.isPending || finish.isPending };
}
