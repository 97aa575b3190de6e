/**
 * Setting up SAML single sign-on (README "SAML single sign-on"), in a wide modal (SPEC 9: 800):
 * what the identity provider needs, each with a copy button (the service provider's entity ID,
 * the ACS URL, the NameID format, the attribute names), short steps for Okta, Microsoft Entra
 * ID and Google Workspace, and the identity provider's metadata by URL (refreshed daily) or as
 * an XML file. Saving creates or updates the connection; a problem with the metadata shows the
 * API's message, which names it.
 */
import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { TextField } from "@/components/ui/TextField";

import { useSaveSaml } from "../api/saml";
import { type SamlConnection, type ServiceProvider, providerSteps } from "../lib/saml";

import styles from "./saml.module.css";
import userStyles from "./users.module.css";

type Source = "url" | "file";

interface Props {
  serviceProvider: ServiceProvider;
  connection: SamlConnection | null;
  onClose: () => void;
}

export function SamlSetupModal({ serviceProvider: sp, connection, onClose }: Props) {
  const save = useSaveSaml();
  const [source, setSource] = useState<Source>(connection && !connection.metadataUrl ? "file" : "url");
  const [url, setUrl] = useState(connection?.metadataUrl ?? "");
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const ready = source === "url" ? url.trim() !== "" : file !== null;

  const values: [string, string][] = [
    ["Entity ID (Audience URI)", sp.entityId],
    ["ACS URL (Reply URL)", sp.acsUrl],
    ["NameID format", sp.nameIdFormat],
    ["Email attribute", sp.emailAttribute],
    ["First name attribute", sp.firstNameAttribute],
    ["Last name attribute", sp.lastNameAttribute],
  ];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    const body = source === "url" ? { metadataUrl: url.trim() } : { metadataXml: file?.text ?? "" };
    save.mutate({ body }, { onSuccess: onClose });
  };

  return (
    <Modal
      open
      onClose={onClose}
      width="wide"
      title={connection ? "Update SAML single sign-on" : "Set up SAML single sign-on"}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form="saml-setup" disabled={!ready} loading={save.isPending}>
            Save connection
          </Button>
        </>
      }
    >
      <form id="saml-setup" className={styles.setup} onSubmit={submit}>
        <section aria-labelledby="saml-sp-title">
          <h3 id="saml-sp-title" className={styles.heading}>
            1. Create a SAML app in your identity provider with these values
          </h3>
          <dl className={styles.values}>
            {values.map(([label, value]) => (
              <div key={label} className={styles.valueRow}>
                <dt>{label}</dt>
                <dd>
                  <code className={styles.value}>{value}</code>
                  <CopyButton value={value} label={`Copy ${label}`} />
                </dd>
              </div>
            ))}
          </dl>
          <div className={styles.steps}>
            {providerSteps(sp).map((provider) => (
              <details key={provider.name} className={styles.provider}>
                <summary>Steps for {provider.name}</summary>
                <ol>
                  {provider.steps.map((step) => (
                    <li key={step}>{step}</li>
                  ))}
                </ol>
              </details>
            ))}
          </div>
        </section>
        <section aria-labelledby="saml-metadata-title">
          <h3 id="saml-metadata-title" className={styles.heading}>
            2. Give us your identity provider&apos;s metadata
          </h3>
          <fieldset className={styles.sources}>
            <legend className={userStyles.srOnly}>Metadata source</legend>
            <label className={styles.source}>
              <input type="radio" name="source" checked={source === "url"} onChange={() => setSource("url")} />
              By URL <span className={styles.hint}>(recommended: fetched again every day)</span>
            </label>
            <label className={styles.source}>
              <input type="radio" name="source" checked={source === "file"} onChange={() => setSource("file")} />
              Upload the XML file
            </label>
          </fieldset>
          {source === "url" ? (
            <TextField
              label="Metadata URL"
              type="url"
              placeholder="https://your-company.okta.com/app/…/sso/saml/metadata"
              value={url}
              autoComplete="off"
              spellCheck="false"
              onChange={(event) => {
                setUrl(event.target.value);
                if (save.error) save.reset();
              }}
            />
          ) : (
            <label className={styles.file}>
              <span className={styles.fileLabel}>Metadata file (.xml)</span>
              <input
                type="file"
                accept=".xml,application/xml,text/xml,application/samlmetadata+xml"
                onChange={(event) => {
                  const chosen = event.target.files?.[0];
                  if (save.error) save.reset();
                  if (!chosen) return setFile(null);
                  void chosen.text().then((text) => setFile({ name: chosen.name, text }));
                }}
              />
            </label>
          )}
        </section>
        {save.error ? <InfoBox variant="error">{errorMessage(save.error)}</InfoBox> : null}
      </form>
    </Modal>
  );
}
