/**
 * Account Configuration (SPEC 2): the editable account name, saved only when non-empty and
 * changed (SPEC 5), and the API key with its copy control.
 */
import { useState } from "react";

import { type Account, errorMessage } from "@/api";
import { Button } from "@/components/ui/Button";
import page from "@/components/layout/page.module.css";
import { CopyButton } from "@/components/ui/CopyButton";
import { TextField } from "@/components/ui/TextField";

import { useUpdateAccountName } from "../api/account";

import styles from "./account.module.css";

export function AccountConfiguration({ account }: { account: Account }) {
  const [name, setName] = useState(account.name);
  const rename = useUpdateAccountName();
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
          onChange={(event) => setName(event.target.value)}
          error={rename.isError ? errorMessage(rename.error) : null}
        />
        <Button type="submit" disabled={!canSave} loading={rename.isPending}>
          Save
        </Button>
      </form>
      <div>
        <p className={styles.label}>API Key</p>
        <div className={styles.keyRow}>
          <code className={page.secret} data-testid="api-key">
            {account.apiKey}
          </code>
          <CopyButton value={account.apiKey} label="Copy API Key" />
        </div>
      </div>
    </div>
  );
}
