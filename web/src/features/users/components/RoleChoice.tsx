/**
 * The role choice of the invite and edit dialogs (README "Roles and invitations"): one radio per role the signed-in
 * user may give (Owner only by Owners), each with a line on what it may do.
 */
import { useId } from "react";

import type { Role } from "@/lib/permissions";

import { ROLE_DESCRIPTIONS } from "../lib/roles";

import styles from "./users.module.css";

interface Props {
  value: Role;
  onChange: (role: Role) => void;
  /** The roles offered, in order. */
  roles: readonly Role[];
}

export function RoleChoice({ value, onChange, roles }: Props) {
  const name = useId();
  return (
    <fieldset className={styles.options}>
      <legend className={styles.legend}>Role</legend>
      {roles.map((role) => (
        <label key={role} className={styles.option}>
          <input
            type="radio"
            name={name}
            value={role}
            checked={value === role}
            onChange={() => onChange(role)}
          />
          <span>
            <span className={styles.optionLabel}>{role}</span>
            <span className={styles.optionDescription}>{ROLE_DESCRIPTIONS[role]}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
