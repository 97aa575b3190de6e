/**
 * The domain box (SPEC 9: 600 to 620 px wide; README "Verified domains") inside the Security
 * section: the account's email domains for Google SSO, each with its state (Pending, Verified,
 * Failed, Lost), when it was last checked, the TXT record that proves it (with a copy button),
 * and Verify and Remove. A domain is added from the form at the top. Adding, verifying and
 * removing are for Owners and Admins (README "Roles and invitations"); for Members they are
 * disabled with the reason as a tooltip.
 */
import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { CopyButton } from "@/components/ui/CopyButton";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";
import { usePermissions } from "@/api/use-permissions";

import { useAddDomain, useDomains, useRemoveDomain, useVerifyDomain } from "../api/domains";
import { STATE_HINTS, type SsoDomain, lastCheckLabel } from "../lib/domains";

import styles from "./domains.module.css";

export function DomainsBox() {
  const { data: domains, error } = useDomains();
  const add = useAddDomain();
  const [value, setValue] = useState("");
  const blocked = usePermissions().whyNot("changeSso");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!value.trim()) return;
    add.mutate({ body: { domain: value } }, { onSuccess: () => setValue("") });
  };

  return (
    <section className={styles.box} aria-labelledby="domains-title">
      <h3 id="domains-title" className={styles.title}>
        Domains
      </h3>
      <p className={styles.lead}>
        Google and SAML single sign-on let people in only from domains this account has proved it
        owns. Add your company&apos;s domain, publish its TXT record at your DNS provider, then press
        Verify.
      </p>
      <form className={styles.addRow} onSubmit={submit}>
        <TextField
          label="Domain"
          placeholder="example.com"
          value={value}
          maxLength={260}
          autoComplete="off"
          spellCheck="false"
          disabled={blocked !== null}
          onChange={(event) => {
            setValue(event.target.value);
            if (add.error) add.reset();
          }}
          error={add.error ? errorMessage(add.error) : null}
        />
        <DisabledReason reason={blocked}>
          <Button type="submit" disabled={blocked !== null || !value.trim()} loading={add.isPending}>
            Add domain
          </Button>
        </DisabledReason>
      </form>
      {error ? <InfoBox variant="error">{errorMessage(error)}</InfoBox> : null}
      {domains && domains.length > 0 ? (
        <ul className={styles.list} aria-label="Domains">
          {domains.map((domain) => (
            <DomainItem key={domain.id} domain={domain} blocked={blocked} />
          ))}
        </ul>
      ) : domains ? (
        <p className={styles.empty}>No domains yet.</p>
      ) : null}
    </section>
  );
}

function DomainItem({ domain, blocked }: { domain: SsoDomain; blocked: string | null }) {
  const verify = useVerifyDomain();
  const remove = useRemoveDomain();
  const [confirming, setConfirming] = useState(false);
  const path = { params: { path: { domain_id: domain.id } } };
  const closeConfirm = () => {
    setConfirming(false);
    remove.reset();
  };

  return (
    <li className={styles.item} aria-label={domain.domain}>
      <div className={styles.itemHeader}>
        <div className={styles.nameLine}>
          <span className={styles.name}>{domain.domain}</span>
          <span className={styles.state} data-state={domain.state}>
            {domain.state}
          </span>
        </div>
        <div className={styles.itemActions}>
          <DisabledReason reason={blocked}>
            <Button
              variant="secondary"
              aria-label={`Verify ${domain.domain}`}
              disabled={blocked !== null}
              loading={verify.isPending}
              onClick={() => verify.mutate(path)}
            >
              Verify
            </Button>
          </DisabledReason>
          <DisabledReason reason={blocked}>
            <Button
              variant="ghost"
              aria-label={`Remove ${domain.domain}`}
              disabled={blocked !== null}
              onClick={() => setConfirming(true)}
            >
              Remove
            </Button>
          </DisabledReason>
        </div>
      </div>
      <p className={styles.meta}>
        <span>{lastCheckLabel(domain.checkedAt)}</span>
        <span aria-hidden> · </span>
        <span>{STATE_HINTS[domain.state]}</span>
      </p>
      {verify.error ? (
        <InfoBox variant="error">{errorMessage(verify.error)}</InfoBox>
      ) : domain.message ? (
        <InfoBox variant={domain.state === "Lost" ? "warning" : "error"}>{domain.message}</InfoBox>
      ) : null}
      <div className={styles.record}>
        <p className={styles.recordLead}>
          {domain.state === "Verified"
            ? "Keep this TXT record published: it is checked again every day."
            : "Add this TXT record at the domain's apex (the domain itself, host “@” at most DNS providers; not a subdomain):"}
        </p>
        <dl className={styles.recordFields}>
          <dt>Type</dt>
          <dd>{domain.record.type}</dd>
          <dt>Name</dt>
          <dd>{domain.record.name}</dd>
          <dt>Value</dt>
          <dd className={styles.valueRow}>
            <code className={styles.value} data-testid="txt-value">
              {domain.record.value}
            </code>
            <CopyButton value={domain.record.value} label="Copy TXT record" />
          </dd>
        </dl>
      </div>
      {confirming ? (
        <ConfirmModal
          title="Remove Domain"
          confirmLabel="Remove"
          danger
          pending={remove.isPending}
          error={remove.error}
          onClose={closeConfirm}
          onConfirm={() => remove.mutate(path, { onSuccess: () => setConfirming(false) })}
        >
          <p className={styles.lead}>
            People with an address at {domain.domain} will no longer be able to join this account
            by signing in with Google. Existing users keep their access.
          </p>
        </ConfirmModal>
      ) : null}
    </li>
  );
}
