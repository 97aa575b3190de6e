/**
 * /users: User Management (SPEC 2): the users list with Edit and Delete, '+ Invite User'
 * (disabled with its tooltip while Google SSO is on, SPEC 5), and the Security section.
 */
import { useState } from "react";

import type { components } from "@/api/schema";
import { PageHeader } from "@/components/layout/PageHeader";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { Panel } from "@/components/ui/Panel";
import { Tooltip } from "@/components/ui/Tooltip";

import { useAccountUsers, useSessionUser, useSso } from "../api/users";
import { DeleteUserModal } from "../components/DeleteUserModal";
import { SecuritySection } from "../components/SecuritySection";
import { UserFormModal } from "../components/UserFormModal";
import { INVITE_DISABLED_TOOLTIP } from "../lib/sso";
import styles from "../components/users.module.css";

type AccountUser = components["schemas"]["AccountUser"];
type Dialog = { kind: "invite" } | { kind: "edit" | "delete"; user: AccountUser } | null;

export function Component() {
  const { data: users } = useAccountUsers();
  const { data: sso } = useSso();
  const { data: me } = useSessionUser();
  const [dialog, setDialog] = useState<Dialog>(null);
  if (!users || !sso || !me) return null; // the shell renders pages once both have loaded
  const currentUser = users.find((u) => u.id === me.id) ?? { ...me, authType: "Email" };
  const close = () => setDialog(null);

  const inviteButton = (
    <Button disabled={sso.isGoogleSSO} onClick={() => setDialog({ kind: "invite" })}>
      + Invite User
    </Button>
  );

  return (
    <>
      <PageHeader title="User Management" />
      <div className={page.stack}>
        <Panel
          title="Users"
          description={`${users.length} ${users.length === 1 ? "person has" : "people have"} access to this account.`}
          actions={
            sso.isGoogleSSO ? (
              <Tooltip content={INVITE_DISABLED_TOOLTIP} side="bottom">
                <span tabIndex={0} className={styles.disabledWrap}>
                  {inviteButton}
                </span>
              </Tooltip>
            ) : (
              inviteButton
            )
          }
        >
          <table className={page.table} aria-label="Users">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Sign-in</th>
                <th scope="col">
                  <span className={styles.srOnly}>Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => {
                const name = `${user.firstName} ${user.lastName}`;
                const isMe = user.id === me.id;
                return (
                  <tr key={user.id}>
                    <td>
                      {name}
                      {isMe ? <span className={styles.you}> (you)</span> : null}
                    </td>
                    <td>{user.email}</td>
                    <td>
                      <span className={page.badge}>{user.authType}</span>
                    </td>
                    <td className={styles.rowActions}>
                      <Button
                        variant="ghost"
                        aria-label={`Edit ${name}`}
                        onClick={() => setDialog({ kind: "edit", user })}
                      >
                        Edit
                      </Button>
                      {isMe ? null : (
                        <Button
                          variant="ghost"
                          aria-label={`Delete ${name}`}
                          onClick={() => setDialog({ kind: "delete", user })}
                        >
                          Delete
                        </Button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Panel>
        <SecuritySection sso={sso} currentUser={currentUser} />
      </div>
      {dialog?.kind === "invite" ? <UserFormModal onClose={close} /> : null}
      {dialog?.kind === "edit" ? <UserFormModal user={dialog.user} onClose={close} /> : null}
      {dialog?.kind === "delete" ? <DeleteUserModal user={dialog.user} onClose={close} /> : null}
    </>
  );
}
