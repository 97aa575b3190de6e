/**
 * Account Configuration (SPEC 2): the editable account name, saved only when non-empty and
 * changed (SPEC 5), and the API keys with their copy control (README "API keys": masked,
 * Reveal, Roll). Renaming is for Owners and Admins (README "Roles and invitations"): for
 * Members the name is read-only and Save is disabled with the reason as a tooltip.
 */
import { useState } from "react";

import { type Account, errorMessage } from "@/api";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { TextField } from "@/components/ui/TextField";
import { usePermissions } from "@/api/use-permissions";

import { useUpdateAccountName } from "../api/account";

import { ApiKeys } from "./ApiKeys";

import styles from "./account.module.css";

export function AccountConfiguration({ account }: { account: Account }) {
  const [name, setName] = useState(account.name);
  const rename = useUpdateAccountName();
  const blocked = usePermissions().whyNot("renameAccount");
  const trimmed = name.trim();
  const canSave = trimmed !== "" && trimmed !== account.name;

  return (
    <div className={page.stack}>
      <form
        className={styles.nameRow}
        onSubmit={(event) => {
          event.preventDefault();
          if (canSave) rename.mutate({ body: { name: trimmed } }, { onSuccess: () => setName(trimmed) });
        }}
      >
        <TextField
          label="Account Name"
          value={name}
          maxLength={200}
          readOnly={blocked !== null}
          onChange={(event) => setName(event.target.value)}
          error={rename.isError ? errorMessage(rename.error) : null}
        />
        <DisabledReason reason={blocked}>
          <Button type="submit" disabled={blocked !== null || !canSave} loading={rename.isPending}>
            Save
          </Button>
        </DisabledReason>
      </form>
      <ApiKeys />
    </div>
  );
}
