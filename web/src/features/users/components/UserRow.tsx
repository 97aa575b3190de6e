/**
 * A row of the users list (SPEC 2; README "Roles and invitations"): the name with a Pending or Expired badge and the
 * invite date, the email, the role, how they sign in, and the actions the signed-in
 * user may take on them: Edit, then Delete for an Active user (none to delete oneself), or
 * Resend and Revoke for a Pending or Expired invitation; whether their two-step sign-in is on
 * (— for identity-provider users), and its reset while it is (not one's own); for Owners and Admins, how many
 * sessions they have and Sign out (everywhere, not one's own: README "Sessions"). An action the signed-in user's role
 * does not allow is disabled with the reason as a tooltip.
 */
import { errorMessage } from "@/api";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { usePermissions } from "@/api/use-permissions";

import { useResendInvitation } from "../api/users";
import { type AccountUser, awaitsSsoSignIn, invitationLabel } from "../lib/roles";

import styles from "./users.module.css";

export type UserAction = "edit" | "delete" | "revoke" | "resetTwoStep" | "signOut";
/** What a Resend did, for the list's notice. */
export type Notice = { variant: "info" | "error"; text: string };

interface Props {
  user: AccountUser;
  isMe: boolean;
  /** Their live sign-in sessions (README "Sessions"); undefined for those who may not see them. */
  sessions?: number;
  onAction: (action: UserAction, user: AccountUser) => void;
  onNotice: (notice: Notice) => void;
}

export function UserRow({ user, isMe, sessions, onAction, onNotice }: Props) {
  const resend = useResendInvitation();
  const reason = usePermissions().whyNotManage(user.role);
  const name = `${user.firstName} ${user.lastName}`;
  const invitation = invitationLabel(user);

  const action = (label: string, onClick: () => void, loading = false) => (
    <DisabledReason key={label} reason={reason}>
      <Button
        variant="ghost"
        aria-label={`${label} ${name}`}
        disabled={reason !== null}
        loading={loading}
        onClick={onClick}
      >
        {label}
      </Button>
    </DisabledReason>
  );
  const resendInvitation = () =>
    resend.mutate(
      { params: { path: { user_id: user.id } } },
      {
        onSuccess: () =>
          onNotice({
            variant: "info",
            text: `A new invitation is on its way to ${user.email}. The previous temporary password no longer works.`,
          }),
        onError: (error) => onNotice({ variant: "error", text: errorMessage(error) }),
      },
    );

  return (
    <tr>
      <td>
        {name}
        {isMe ? <span className={styles.you}> (you)</span> : null}
        {invitation ? (
          <span className={styles.invitation}>
            <span className={`${page.badge} ${styles.status}`} data-status={user.status}>
              {user.status}
            </span>
            {invitation}
          </span>
        ) : null}
      </td>
      <td className={styles.email} title={user.email}>
        {user.email}
      </td>
      <td className={styles.noWrap}>
        <span className={`${page.badge} ${styles.role}`} data-role={user.role}>
          {user.role}
        </span>
      </td>
      <td className={styles.noWrap}>
        <span className={page.badge}>{user.authType}</span>
      </td>
      <td className={styles.noWrap} data-testid="two-step-cell">
        {user.twoStepSignIn === null ? (
          <span className={page.muted} title="Their identity provider's own two-step verification applies">
            —
          </span>
        ) : (
          <span className={page.badge} data-two-step={user.twoStepSignIn ? "on" : "off"}>
            {user.twoStepSignIn ? "On" : "Off"}
          </span>
        )}
      </td>
      {sessions === undefined ? null : (
        <td className={styles.noWrap} data-testid="sessions-cell">
          {sessions}
        </td>
      )}
      <td className={styles.rowActions}>
        {action("Edit", () => onAction("edit", user))}
        {sessions && !isMe ? action("Sign out", () => onAction("signOut", user)) : null}
        {user.twoStepSignIn && !isMe ? action("Reset two-step", () => onAction("resetTwoStep", user)) : null}
        {user.status === "Active"
          ? isMe
            ? null
            : action("Delete", () => onAction("delete", user))
          : [
              // Provisioned for single sign-on: no invitation email to send again.
              awaitsSsoSignIn(user) ? null : action("Resend", resendInvitation, resend.isPending),
              action("Revoke", () => onAction("revoke", user)),
            ]}
      </td>
    </tr>
  );
}
