/**
 * User Management → Directory sync (README "Directory sync (SCIM)"), for Owners and Admins:
 * the SCIM base URL to give the identity provider (with a copy button), the account's SCIM
 * tokens (masked, when and by whom each was generated, when it was last used) with Revoke, and
 * Generate token, whose secret is shown once in a dialog to copy into Okta or Entra ID.
 * People the directory provisions appear in the users list as Pending until they first sign in.
 */
import { useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { CopyButton } from "@/components/ui/CopyButton";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { Panel } from "@/components/ui/Panel";

import { useDirectorySync, useGenerateScimToken, useRevokeScimToken } from "../api/directory-sync";

import styles from "./users.module.css";

type Token = components["schemas"]["ScimTokenView"];

function when(iso: string): string {
  return new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" });
}

export function DirectorySync() {
  const { data, error } = useDirectorySync();
  const generate = useGenerateScimToken();
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);

  return (
    <Panel
      title="Directory sync"
      description="Your identity provider (Okta, Microsoft Entra ID, JumpCloud) adds, updates and removes people over SCIM 2.0. Its groups Owners, Admins and Members set their roles."
      actions={
        <Button
          loading={generate.isPending}
          onClick={() => generate.mutate({}, { onSuccess: (created) => setSecret(created.secret) })}
        >
          Generate token
        </Button>
      }
    >
      {error ? <InfoBox variant="error" title={errorMessage(error)} /> : null}
      {generate.error ? <InfoBox variant="error" title={errorMessage(generate.error)} /> : null}
      {data ? (
        <div className={page.stack}>
          <div>
            <p className={styles.fieldLabel} id="scim-base-url">
              SCIM base URL
            </p>
            <div className={styles.copyRow}>
              <code className={page.secret} aria-labelledby="scim-base-url" data-testid="scim-base-url">
                {data.baseUrl}
              </code>
              <CopyButton value={data.baseUrl} label="Copy SCIM base URL" />
            </div>
          </div>
          {data.tokens.length ? (
            <table className={page.table} aria-label="SCIM tokens">
              <thead>
                <tr>
                  <th scope="col">Token</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className={styles.srOnly}>Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.tokens.map((token) => (
                  <tr key={token.id}>
                    <td>
                      <code>{token.masked}</code>
                    </td>
                    <td>
                      {when(token.createdAt)}
                      {token.createdBy ? ` by ${token.createdBy}` : ""}
                    </td>
                    <td>{token.lastUsedAt ? when(token.lastUsedAt) : "Never"}</td>
                    <td className={styles.rowActions}>
                      <Button variant="ghost" aria-label={`Revoke ${token.masked}`} onClick={() => setRevoking(token)}>
                        Revoke
                      </Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className={page.muted}>No SCIM token yet: generate one for your identity provider.</p>
          )}
        </div>
      ) : null}
      {secret ? <SecretModal secret={secret} onClose={() => setSecret(null)} /> : null}
      {revoking ? <RevokeModal token={revoking} onClose={() => setRevoking(null)} /> : null}
    </Panel>
  );
}

function SecretModal({ secret, onClose }: { secret: string; onClose: () => void }) {
  return (
    <Modal
      open
      onClose={onClose}
      title="SCIM token"
      width="medium"
      footer={<Button onClick={onClose}>Done</Button>}
    >
      <div className={page.stack}>
        <InfoBox
          variant="warning"
          title="Copy it now: this is the only time the token is shown."
        />
        <p className={styles.lead}>
          Paste it into your identity provider as the API token (bearer token) of the SCIM
          app, with the base URL above.
        </p>
        <div className={styles.copyRow}>
          <code className={page.secret} data-testid="scim-token">
            {secret}
          </code>
          <CopyButton value={secret} label="Copy SCIM token" />
        </div>
      </div>
    </Modal>
  );
}

function RevokeModal({ token, onClose }: { token: Token; onClose: () => void }) {
  const revoke = useRevokeScimToken();
  return (
    <ConfirmModal
      title="Revoke SCIM token"
      confirmLabel="Revoke"
      danger
      pending={revoke.isPending}
      error={revoke.error}
      onClose={onClose}
      onConfirm={() => revoke.mutate({ params: { path: { token_id: token.id } } }, { onSuccess: onClose })}
    >
      <p className={styles.lead}>
        Your identity provider&apos;s next request with {token.masked} will be refused. People it
        provisioned keep their access.
      </p>
    </ConfirmModal>
  );
}
