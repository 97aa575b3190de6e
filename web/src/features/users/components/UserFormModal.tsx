/**
 * Invite a user (firstName, lastName, email, role) or edit one (names and role: "Edit user:
 * email is read-only", SPEC 2). The role choice offers the roles the signed-in user may give
 * (README "Roles and invitations": Admin by default, Owner only by Owners). Errors from the API
 * (a role refusal, LastOwnerRequired...) show above the fields.
 */
import { type FormEvent, useState } from "react";

import { errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { TextField } from "@/components/ui/TextField";
import type { Role } from "@/lib/permissions";
import { usePermissions } from "@/api/use-permissions";

import { useInviteUser, useUpdateUser } from "../api/users";
import type { AccountUser } from "../lib/roles";

import { RoleChoice } from "./RoleChoice";

import styles from "./users.module.css";

interface Props {
  /** The user to edit; undefined invites a new one. */
  user?: AccountUser;
  /** The user edited is the signed-in one: their role is another Owner's to change. */
  isMe?: boolean;
  onClose: () => void;
}

/** The API's own words (CannotChangeOwnRole). */
export const OWN_ROLE = "You cannot change your own role. Ask another Owner to change it.";

export function UserFormModal({ user, isMe = false, onClose }: Props) {
  const invite = useInviteUser();
  const update = useUpdateUser();
  const mutation = user ? update : invite;
  const [firstName, setFirstName] = useState(user?.firstName ?? "");
  const [lastName, setLastName] = useState(user?.lastName ?? "");
  const [email, setEmail] = useState(user?.email ?? "");
  const [role, setRole] = useState<Role>(user?.role ?? "Admin");
  const { grantable } = usePermissions();
  const [missing, setMissing] = useState<Set<string>>(new Set());

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const empty = new Set(
      Object.entries({ firstName, lastName, email })
        .filter(([, value]) => !value.trim())
        .map(([name]) => name),
    );
    setMissing(empty);
    if (empty.size > 0) return;
    const names = { firstName: firstName.trim(), lastName: lastName.trim() };
    if (user) {
      update.mutate(
        {
          params: { path: { user_id: user.id } },
          body: role === user.role ? names : { ...names, role },
        },
        { onSuccess: onClose },
      );
    } else {
      invite.mutate(
        { body: { ...names, email: email.trim().toLowerCase(), role } },
        { onSuccess: onClose },
      );
    }
  };

  return (
    <Modal open onClose={onClose} width="medium" title={user ? "Edit User" : "Invite User"}>
      <form className={styles.form} onSubmit={submit} noValidate>
        {mutation.error ? <InfoBox variant="error">{errorMessage(mutation.error)}</InfoBox> : null}
        {user ? null : (
          <p className={styles.lead}>
            They will get an email with a temporary password and choose their own when they
            first sign in.
          </p>
        )}
        <div className={styles.row}>
          <TextField
            label="First name"
            value={firstName}
            onChange={(e) => setFirstName(e.target.value)}
            error={missing.has("firstName") ? "Required" : null}
            autoFocus
          />
          <TextField
            label="Last name"
            value={lastName}
            onChange={(e) => setLastName(e.target.value)}
            error={missing.has("lastName") ? "Required" : null}
          />
        </div>
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          readOnly={Boolean(user)}
          hint={user ? "The email address cannot be changed." : undefined}
          error={missing.has("email") ? "Required" : null}
        />
        {isMe && user ? (
          <p className={styles.ownRole}>
            Role: <strong>{user.role}</strong>. {OWN_ROLE}
          </p>
        ) : (
          <RoleChoice value={role} onChange={setRole} roles={grantable} />
        )}
        <div className={styles.actions}>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={mutation.isPending}>
            {user ? "Save" : "Invite User"}
          </Button>
        </div>
      </form>
    </Modal>
  );
}
