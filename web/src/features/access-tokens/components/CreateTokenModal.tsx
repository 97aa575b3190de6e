/**
 * Create an access token (README "Automation"; POST /web/access-tokens): a name, the last day
 * it works (7, 30 or 90 days from today, or a date up to a year away; UTC) and its scopes
 * (lib/token-scopes.ts: within the signed-in user's role). Each refusal of the API shows where it
 * belongs: a taken name under the name, a date out of range under the date, a scope beyond the
 * role under the scopes, the rest (turned off, too many tokens) above the form.
 *
 * Created, the dialog shows the secret this once, with a copy button. Closing it drops the
 * secret: the dialog unmounts and the mutation is reset with no cache time, so neither the
 * page nor React Query keeps it.
 */
import { type FormEvent, useId, useState } from "react";

import { errorMessage, isApiError, isEnvelope } from "@/api";
import type { components } from "@/api/schema";
import { usePermissions } from "@/api/use-permissions";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { TextField } from "@/components/ui/TextField";
import { dayLabel } from "@/lib/dates";
import { TOKEN_SCOPES, type TokenScope, whyNotScope } from "@/lib/token-scopes";

import { useCreateAccessToken } from "../api/access-tokens";
import { type ExpiryChoice, PRESET_DAYS, expiresOn, expiryError, expiryRange } from "../lib/expiry";
import { lastDay } from "../lib/format";
import { inPickerOrder } from "../lib/scopes";

import styles from "./create-token.module.css";
import { ScopePicker } from "./ScopePicker";

type Created = components["schemas"]["AccessTokenCreated"];

/** The API's limit on a name (api/identity/access_tokens/schemas.py NAME_MAX_LENGTH). */
const NAME_MAX_LENGTH = 100;
/** The API's own words (NAME_REQUIRED). */
const NAME_REQUIRED = "Give the token a name";
const NO_SCOPE = "Choose at least one scope.";

type Field = "name" | "expiry" | "scopes";

/** Where the API's refusal `error` belongs in the form; null: above it. */
function fieldOf(error: unknown): Field | null {
  if (!isApiError(error)) return null;
  switch (error.code) {
    case "AccessTokenNameTaken":
      return "name";
    case "ExpiryOutOfRange":
      return "expiry";
    case "ScopeBeyondRole":
      return "scopes";
    case "ValidationError": {
      const field = isEnvelope(error.body) ? error.body.fields?.[0]?.field ?? "" : "";
      if (field === "name") return "name";
      if (field === "expiresOn") return "expiry";
      if (field.startsWith("scopes")) return "scopes";
      return null;
    }
    default:
      return null;
  }
}

export function CreateTokenModal({ onClose }: { onClose: () => void }) {
  const create = useCreateAccessToken();
  const close = () => {
    create.reset(); // the secret leaves React Query's state with the dialog
    onClose();
  };
  return (
    <Modal
      open
      onClose={() => !create.isPending && close()}
      width={create.data ? "wide" : "extra-wide"}
      title={create.data ? "Access token created" : "Create access token"}
      footer={create.data ? <Button onClick={close}>Done</Button> : null}
    >
      {create.data ? <SecretView created={create.data} /> : <CreateForm create={create} onCancel={close} />}
    </Modal>
  );
}

function CreateForm({ create, onCancel }: { create: ReturnType<typeof useCreateAccessToken>; onCancel: () => void }) {
  const { role } = usePermissions();
  const whyNot = (scope: TokenScope) => whyNotScope(role, scope);
  const ids = useId();
  const [now] = useState(() => Date.now());
  const [name, setName] = useState("");
  const [choice, setChoice] = useState<ExpiryChoice>(30);
  const [date, setDate] = useState("");
  const [scopes, setScopes] = useState<ReadonlySet<TokenScope>>(new Set());
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});

  const day = expiresOn(choice, date, now);
  const range = expiryRange(now);
  const apiField = create.error ? fieldOf(create.error) : null;
  const shown: Partial<Record<Field, string>> = {
    ...errors,
    ...(apiField ? { [apiField]: errorMessage(create.error) } : {}),
  };
  const edited = (field: Field) => {
    setErrors((before) => ({ ...before, [field]: undefined }));
    if (apiField === field) create.reset();
  };
  const refusedScopes = inPickerOrder(TOKEN_SCOPES.filter((scope) => whyNot(scope) !== null));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    const found: Partial<Record<Field, string>> = {};
    if (!trimmed) found.name = NAME_REQUIRED;
    const dateError = expiryError(day, now);
    if (dateError) found.expiry = dateError;
    if (scopes.size === 0) found.scopes = NO_SCOPE;
    setErrors(found);
    if (Object.keys(found).length > 0 || day === null) return;
    create.mutate({ body: { name: trimmed, expiresOn: day, scopes: inPickerOrder(scopes) } });
  };

  const toggle = (scope: TokenScope) => {
    edited("scopes");
    setScopes((before) => {
      const next = new Set(before);
      if (next.has(scope)) next.delete(scope);
      else next.add(scope);
      return next;
    });
  };

  const expiryMessageId = `${ids}-expiry`;
  const scopesMessageId = `${ids}-scopes`;
  return (
    <form className={styles.form} onSubmit={submit} noValidate>
      {create.error && apiField === null ? (
        <InfoBox variant="error">{errorMessage(create.error)}</InfoBox>
      ) : null}
      <div className={styles.topRow}>
        <TextField
          label="Name"
          value={name}
          maxLength={NAME_MAX_LENGTH}
          autoFocus
          placeholder="Nightly usage report"
          hint="Names the token in the list and in the audit log."
          error={shown.name ?? null}
          onChange={(event) => {
            setName(event.target.value);
            edited("name");
          }}
        />
        <div className={styles.field}>
          <label htmlFor={`${ids}-expiry-choice`} className={styles.label}>
            Expiration
          </label>
          <div className={styles.expiryInputs}>
            <select
              id={`${ids}-expiry-choice`}
              className={styles.select}
              value={String(choice)}
              aria-describedby={expiryMessageId}
              onChange={(event) => {
                const value = event.target.value;
                setChoice(value === "custom" ? "custom" : (Number(value) as ExpiryChoice));
                edited("expiry");
              }}
            >
              {PRESET_DAYS.map((days) => (
                <option key={days} value={days}>
                  {days} days
                </option>
              ))}
              <option value="custom">Custom date…</option>
            </select>
            {choice === "custom" ? (
              <input
                type="date"
                className={styles.dateInput}
                aria-label="Last day the token works"
                aria-describedby={expiryMessageId}
                aria-invalid={shown.expiry ? true : undefined}
                min={range.min}
                max={range.max}
                value={date}
                onChange={(event) => {
                  setDate(event.target.value);
                  edited("expiry");
                }}
              />
            ) : null}
          </div>
          {shown.expiry ? (
            <p id={expiryMessageId} className={styles.fieldError}>
              {shown.expiry}
            </p>
          ) : (
            <p id={expiryMessageId} className={styles.hint} data-testid="expiry-summary">
              {day
                ? `Works through ${dayLabel(day)}, to the end of that day (UTC).`
                : `Choose a day from ${dayLabel(range.min)} to ${dayLabel(range.max)}.`}
            </p>
          )}
        </div>
      </div>

      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>
          Scopes{" "}
          <span id={`${scopesMessageId}-note`} className={styles.legendNote}>
            · Give it only what it needs
            {refusedScopes.length ? `; your role does not hold ${refusedScopes.join(" or ")}` : ""}.
          </span>
        </legend>
        <ScopePicker
          chosen={scopes}
          onToggle={toggle}
          whyNot={whyNot}
          describedBy={shown.scopes ? scopesMessageId : `${scopesMessageId}-note`}
        />
        {shown.scopes ? (
          <p id={scopesMessageId} className={styles.fieldError} role="alert">
            {shown.scopes}
          </p>
        ) : null}
      </fieldset>

      <div className={styles.formActions}>
        <Button variant="secondary" onClick={onCancel} disabled={create.isPending}>
          Cancel
        </Button>
        <Button type="submit" loading={create.isPending}>
          Create token
        </Button>
      </div>
    </form>
  );
}

function SecretView({ created }: { created: Created }) {
  const { token, secret } = created;
  return (
    <div className={styles.form}>
      <InfoBox variant="warning" title="Copy the token now: you won't see it again.">
        The console keeps only a fingerprint of it. If it is lost, revoke it and create another.
      </InfoBox>
      <div className={styles.secretRow}>
        <code className={page.secret} data-testid="access-token-secret">
          {secret}
        </code>
        <CopyButton value={secret} label="Copy access token" />
      </div>
      <dl className={styles.summary}>
        <dt>Name</dt>
        <dd>{token.name}</dd>
        <dt>Scopes</dt>
        <dd>{inPickerOrder(token.scopes).join(", ")}</dd>
        <dt>Works through</dt>
        <dd>{dayLabel(lastDay(token.expiresAt))} (UTC)</dd>
      </dl>
      <p className={styles.lead}>
        Store it as a secret of your CI and send it as <code>Authorization: Bearer &lt;token&gt;</code>; the
        command line reads it from <code>CONSOLE_TOKEN</code>.
      </p>
    </div>
  );
}
