/**
 * /users: User Management (SPEC 2; README "Roles and invitations"): the users list with each
 * one's role, a Pending or Expired badge for invitations not yet accepted, and the actions the
 * signed-in user's role allows (Edit, Delete; Resend and Revoke for invitations); '+ Invite
 * User' (disabled with its tooltip while Google or SAML SSO is on, SPEC 5, or for Members);
 * whether each has two-step sign-in on, and its reset (README "Two-step sign-in"); the Security
 * section; and, for Owners and Admins, each user's live sessions with Sign out (everywhere,
 * README "Sessions") and Directory sync (SCIM tokens). While the SAML
 * connection's signing certificate expires within 30 days (or has expired), a warning says so
 * at the top (README "SAML single sign-on").
 */
import { Suspense, useState } from "react";

import page from "@/components/layout/page.module.css";
import { PageHeader } from "@/components/layout/PageHeader";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { preloaded } from "@/components/preloaded";
import { usePermissions } from "@/api/use-permissions";

import { useSamlSettings } from "../api/saml";
import {
  useAccountUsers,
  useMemberSessions,
  useSessionUser,
  useSso,
  useTwoStepRequired,
} from "../api/users";
import { type Notice, type UserAction, UserRow } from "../components/UserRow";
import type { AccountUser } from "../lib/roles";
import { certificateWarning } from "../lib/certificate-warning";
import { INVITE_DISABLED_TOOLTIP } from "../lib/sso";
import styles from "../components/users.module.css";

// Below the users list (Security, Directory sync) or shown on request (the dialogs): chunks of
// their own, fetched as this module runs, so the page's first paint does not wait for them (the
// first-load budget, README "Performance").
const SecuritySection = preloaded(() =>
  import("../components/SecuritySection").then((m) => m.SecuritySection),
);
const DirectorySync = preloaded(() => import("../components/DirectorySync").then((m) => m.DirectorySync));
const UserFormModal = preloaded(() => import("../components/UserFormModal").then((m) => m.UserFormModal));
const DeleteUserModal = preloaded(() =>
  import("../components/DeleteUserModal").then((m) => m.DeleteUserModal),
);
const RevokeInvitationModal = preloaded(() =>
  import("../components/RevokeInvitationModal").then((m) => m.RevokeInvitationModal),
);
const ResetTwoStepModal = preloaded(() =>
  import("../components/ResetTwoStepModal").then((m) => m.ResetTwoStepModal),
);
const SignOutEverywhereModal = preloaded(() =>
  import("../components/SignOutEverywhereModal").then((m) => m.SignOutEverywhereModal),
);

type Dialog = { kind: "invite" } | { kind: UserAction; user: AccountUser } | null;

export function Component() {
  const { data: users } = useAccountUsers();
  const { data: sso } = useSso();
  const { data: me } = useSessionUser();
  const connection = useSamlSettings().data?.connection;
  const { data: twoStepRequired } = useTwoStepRequired();
  const { whyNot } = usePermissions();
  // Who is signed in where is for those who may sign them out (README "Sessions").
  const { data: sessions } = useMemberSessions(whyNot("manageUsers") === null);
  const [dialog, setDialog] = useState<Dialog>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  if (!users || !sso || !me) return null; // the shell renders pages once both have loaded
  const currentUser = users.find((u) => u.id === me.id);
  const close = () => setDialog(null);
  const open = (next: Dialog) => {
    setNotice(null); // a Resend's notice is about what came before
    setDialog(next);
  };
  // SPEC 5's reason first: while Google or SAML SSO is on nobody invites.
  const inviteBlocked = sso.isGoogleSSO || sso.isSamlSSO ? INVITE_DISABLED_TOOLTIP : whyNot("manageUsers");
  const expiring = connection ? certificateWarning(connection) : null;

  return (
    <>
      <PageHeader title="User Management" />
      <div className={page.stack}>
        {expiring ? <InfoBox variant="warning">{expiring}</InfoBox> : null}
        <Panel
          title="Users"
          description={`${users.length} ${users.length === 1 ? "person has" : "people have"} access to this account.`}
          actions={
            <DisabledReason reason={inviteBlocked} side="bottom" align="end">
              <Button disabled={inviteBlocked !== null} onClick={() => open({ kind: "invite" })}>
                + Invite User
              </Button>
            </DisabledReason>
          }
        >
          {notice ? (
            <InfoBox
              variant={notice.variant}
              title={notice.text}
              className={styles.notice}
              action={
                <Button variant="ghost" onClick={() => setNotice(null)}>
                  Dismiss
                </Button>
              }
            />
          ) : null}
          <table className={page.table} aria-label="Users">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Sign-in</th>
                <th scope="col">Two-step</th>
                {sessions ? <th scope="col">Sessions</th> : null}
                <th scope="col">
                  <span className={styles.srOnly}>Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((user) => (
                <UserRow
                  key={user.id}
                  user={user}
                  isMe={user.id === me.id}
                  sessions={sessions ? (sessions.get(user.id) ?? 0) : undefined}
                  onAction={(kind, target) => open({ kind, user: target })}
                  onNotice={setNotice}
                />
              ))}
            </tbody>
          </table>
        </Panel>
        {/* Until its chunk is in, a reserved space keeps the footer below the fold. */}
        <Suspense
          fallback={
            <div className={styles.reserved} aria-busy="true">
              <p className={page.muted}>Loading…</p>
            </div>
          }
        >
          <SecuritySection
            sso={sso}
            currentUser={currentUser ?? { ...me, authType: "Email" }}
            twoStep={currentUser ? { required: twoStepRequired ?? false, currentUser } : undefined}
          />
          {whyNot("manageUsers") === null ? <DirectorySync /> : null}
        </Suspense>
      </div>
      <Suspense fallback={null}>
        {dialog?.kind === "invite" ? <UserFormModal onClose={close} /> : null}
        {dialog?.kind === "edit" ? <UserFormModal user={dialog.user} isMe={dialog.user.id === me.id} onClose={close} /> : null}
        {dialog?.kind === "delete" ? <DeleteUserModal user={dialog.user} onClose={close} /> : null}
        {dialog?.kind === "revoke" ? <RevokeInvitationModal user={dialog.user} onClose={close} /> : null}
        {dialog?.kind === "resetTwoStep" ? <ResetTwoStepModal user={dialog.user} onClose={close} /> : null}
        {dialog?.kind === "signOut" ? <SignOutEverywhereModal user={dialog.user} onClose={close} /> : null}
      </Suspense>
    </>
  );
}
