/**
 * User Management → Directory sync (README "Directory sync (SCIM)"), for Owners and Admins:
 * the SCIM base URL to give the identity provider (with a copy button), the account's SCIM
 * tokens (masked, when and by whom each was generated, when it was last used) with Revoke, and
 * Generate token (at most `maxTokens` live tokens), whose secret is shown once in a dialog to
 * copy into Okta or Entra ID. Then the groups the directory sent, each with the role it gives
 * in the console (a select: no role, Owner, Admin, Member; Owner only for Owners, and a group
 * mapped to Owner only by Owners). People the directory provisions appear in the users list as
 * Pending until they first sign in.
 */
import { useId, useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import { usePermissions } from "@/api/use-permissions";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { CopyButton } from "@/components/ui/CopyButton";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { Panel } from "@/components/ui/Panel";
import type { Role } from "@/lib/permissions";

import { groupRoleReason, tokenLimitReason } from "../lib/directory-sync";
import {
  useDirectoryGroups,
  useDirectorySync,
  useGenerateScimToken,
  useMapDirectoryGroup,
  useRevokeScimToken,
} from "../api/directory-sync";

import styles from "./users.module.css";

type Token = components["schemas"]["ScimTokenView"];
type Group = components["schemas"]["DirectoryGroupView"];


function when(iso: string): string {
  return new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" });
}

export function DirectorySync() {
  const { data, error } = useDirectorySync();
  const generate = useGenerateScimToken();
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Token | null>(null);
  const limit = data ? tokenLimitReason(data.tokens, data.maxTokens) : null;

  return (
    <Panel
      title="Directory sync"
      description="Your identity provider (Okta, Microsoft Entra ID, JumpCloud) adds, updates and removes people over SCIM 2.0, and sends its groups: choose the role each group gives below."
      actions={
        <DisabledReason reason={limit} align="end">
          <Button
            loading={generate.isPending}
            disabled={limit !== null}
            onClick={() => generate.mutate({}, { onSuccess: (created) => setSecret(created.secret) })}
          >
            Generate token
          </Button>
        </DisabledReason>
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
          <p className={page.muted}>
            Up to {data.maxTokens} tokens: one per identity provider, and one more to rotate.
          </p>
          <DirectoryGroups />
        </div>
      ) : null}
      {secret ? <SecretModal secret={secret} onClose={() => setSecret(null)} /> : null}
      {revoking ? <RevokeModal token={revoking} onClose={() => setRevoking(null)} /> : null}
    </Panel>
  );
}

const ROLE_CHOICES: readonly Role[] = ["Owner", "Admin", "Member"];

/** The directory's groups and the role each gives; a change applies to its members at once. */
function DirectoryGroups() {
  const { data, error } = useDirectoryGroups();
  const map = useMapDirectoryGroup();
  const { role } = usePermissions();
  const mayGrantOwner = role === "Owner";
  return (
    <section className={page.stack} aria-labelledby="directory-groups">
      <h3 className={styles.fieldLabel} id="directory-groups">
        Groups
      </h3>
      <p className={styles.lead}>
        A person&apos;s role is the highest role of their groups. Someone who leaves their last group that
        gives a role becomes a Member; people in no such group keep the role you give them here.
      </p>
      {error ? <InfoBox variant="error" title={errorMessage(error)} /> : null}
      {map.error ? <InfoBox variant="error" title={errorMessage(map.error)} /> : null}
      {data?.groups.length ? (
        <table className={page.table} aria-label="Directory groups">
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Members</th>
              <th scope="col">Role in the console</th>
            </tr>
          </thead>
          <tbody>
            {data.groups.map((group) => (
              <GroupRow
                key={group.id}
                group={group}
                mayGrantOwner={mayGrantOwner}
                pending={map.isPending}
                onChange={(next) =>
                  map.mutate({ params: { path: { group_id: group.id } }, body: { role: next } })
                }
              />
            ))}
          </tbody>
        </table>
      ) : data ? (
        <p className={page.muted}>
          No groups yet: push groups from your identity provider (Okta: Push Groups; Entra ID: assign groups to the
          application), then choose the role each gives here.
        </p>
      ) : null}
    </section>
  );
}

function GroupRow({
  group,
  mayGrantOwner,
  pending,
  onChange,
}: {
  group: Group;
  mayGrantOwner: boolean;
  pending: boolean;
  onChange: (role: Role | null) => void;
}) {
  const id = useId();
  const reason = groupRoleReason(group.role, mayGrantOwner);
  return (
    <tr>
      <td>
        <label htmlFor={id}>{group.displayName}</label>
      </td>
      <td>{group.members}</td>
      <td>
        <DisabledReason reason={reason}>
          <select
            id={id}
            className={styles.select}
            value={group.role ?? ""}
            disabled={reason !== null || pending}
            onChange={(e) => onChange(e.target.value === "" ? null : (e.target.value as Role))}
          >
            <option value="">No role</option>
            {ROLE_CHOICES.map((choice) => (
              <option key={choice} value={choice} disabled={choice === "Owner" && !mayGrantOwner}>
                {choice}
              </option>
            ))}
          </select>
        </DisabledReason>
      </td>
    </tr>
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
