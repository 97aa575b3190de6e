/**
 * The account's API keys (README "API keys") in Account Configuration: the current key masked
 * (`ak_…1a2b`) with Reveal and Copy (Copy works without revealing; both are recorded), when it
 * was last used and how many records it sent this cycle, its requests against its monthly limit
 * (Set limit); Roll key with an overlap (now, 1 hour, 24 hours, 7 days) during which the old key
 * keeps working, shown with a countdown and Expire now, and the new key's limit (the current
 * one's to start with). SPEC 2's copy control stays: 'Copy API Key', then 'Copied!' for 2.5 s.
 * Every role reveals and copies; Roll key, Expire now and the limit are for Owners and Admins
 * (README "Roles and invitations"), disabled with the reason as a tooltip for Members.
 */
import { useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { TextField } from "@/components/ui/TextField";
import { useNow } from "@/components/relative-time";
import { usePermissions } from "@/api/use-permissions";

import {
  revealApiKey,
  useApiKeys,
  useExpireApiKey,
  useRollApiKey,
  useUpdateApiKey,
} from "../api/account";
import { countdown, lastUsedText } from "../lib/api-keys";
import { limitFraction, limitText, parseLimit } from "../lib/spend";

import styles from "./account.module.css";

type Key = components["schemas"]["ApiKeyView"];
type Overlap = components["schemas"]["RollRequest"]["overlap"];

const OVERLAPS: { value: Overlap; label: string }[] = [
  { value: "now", label: "Stop it now" },
  { value: "1h", label: "1 hour" },
  { value: "24h", label: "24 hours" },
  { value: "7d", label: "7 days" },
];

export function ApiKeys() {
  const { data, error } = useApiKeys();
  const [rolling, setRolling] = useState(false);
  const blocked = usePermissions().whyNot("manageApiKeys");
  if (error) return <InfoBox variant="error" title={errorMessage(error)} />;
  if (!data) return <p className={page.muted}>Loading…</p>;
  const [current, ...older] = data.keys;
  return (
    <div className={page.stack}>
      <div>
        <p className={styles.label}>API Key</p>
        {current ? <KeyRow key={current.id} apiKey={current} current blocked={blocked} /> : null}
      </div>
      {older.length ? (
        <div className={page.stack} aria-label="Previous keys still working">
          <p className={styles.label}>Previous {older.length === 1 ? "key" : "keys"}, still working</p>
          {older.map((k) => (
            <KeyRow key={k.id} apiKey={k} current={false} blocked={blocked} />
          ))}
        </div>
      ) : null}
      <div>
        <DisabledReason reason={blocked} align="start">
          <Button variant="secondary" disabled={blocked !== null} onClick={() => setRolling(true)}>
            Roll key
          </Button>
        </DisabledReason>
      </div>
      <RollModal
        key={String(rolling)}
        open={rolling}
        onClose={() => setRolling(false)}
        currentLimit={current?.monthlyLimit ?? null}
      />
    </div>
  );
}

interface KeyRowProps {
  apiKey: Key;
  current: boolean;
  /** Why the signed-in user may not expire it, or null. */
  blocked: string | null;
}

function KeyRow({ apiKey, current, blocked }: KeyRowProps) {
  const [shown, setShown] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [limiting, setLimiting] = useState(false);
  const expire = useExpireApiKey();
  const now = useNow(apiKey.expiresAt ? 1000 : 60_000);
  return (
    <div className={styles.keyBlock}>
      <div className={styles.keyRow}>
        <code className={page.secret} data-testid={current ? "api-key" : "old-api-key"}>
          {shown ?? apiKey.masked}
        </code>
        <Button
          variant="secondary"
          onClick={() => {
            if (shown) return setShown(null);
            revealApiKey(apiKey.id, "reveal").then(setShown, (err: unknown) =>
              setError(errorMessage(err)),
            );
          }}
        >
          {shown ? "Hide" : "Reveal"}
        </Button>
        <CopyButton value={() => revealApiKey(apiKey.id, "copy")} label="Copy API Key" />
        {current ? null : (
          <DisabledReason reason={blocked}>
            <Button
              variant="danger"
              disabled={blocked !== null}
              loading={expire.isPending}
              onClick={() =>
                expire.mutate(
                  { params: { path: { key_id: apiKey.id } } },
                  { onError: (err) => setError(errorMessage(err)) },
                )
              }
            >
              Expire now
            </Button>
          </DisabledReason>
        )}
      </div>
      <p className={page.muted}>
        {lastUsedText(apiKey.lastUsedAt, now)} · {apiKey.recordsThisCycle.toLocaleString("en-US")}{" "}
        {apiKey.recordsThisCycle === 1 ? "record" : "records"} this cycle
        {apiKey.expiresAt ? ` · stops working in ${countdown(apiKey.expiresAt, now)}` : ""}
      </p>
      <div className={styles.limitRow}>
        {apiKey.monthlyLimit === null || apiKey.monthlyLimit === undefined ? null : (
          <LimitMeter used={apiKey.requestsThisCycle} limit={apiKey.monthlyLimit} />
        )}
        <span data-testid={current ? "api-key-limit" : "old-api-key-limit"}>
          {limitText(apiKey.requestsThisCycle, apiKey.monthlyLimit)}
        </span>
        <DisabledReason reason={blocked}>
          <Button variant="secondary" disabled={blocked !== null} onClick={() => setLimiting(true)}>
            {apiKey.monthlyLimit === null || apiKey.monthlyLimit === undefined
              ? "Set limit"
              : "Change limit"}
          </Button>
        </DisabledReason>
      </div>
      <LimitModal key={String(limiting)} open={limiting} apiKey={apiKey} onClose={() => setLimiting(false)} />
      {error ? (
        <p role="alert" className={styles.error}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A key's requests this cycle against its monthly limit, full (red) at the limit. */
function LimitMeter({ used, limit }: { used: number; limit: number }) {
  const fraction = limitFraction(used, limit);
  return (
    <span
      className={`${styles.limitMeter} ${fraction >= 1 ? styles.limitFull : ""}`}
      role="meter"
      aria-label="Requests this cycle against the monthly limit"
      aria-valuemin={0}
      aria-valuemax={limit}
      aria-valuenow={Math.min(used, limit)}
    >
      <span style={{ width: `${fraction * 100}%` }} />
    </span>
  );
}

const limitInput = (limit: number | null | undefined) =>
  limit === null || limit === undefined ? "" : limit.toLocaleString("en-US");

/**
 * The monthly limit field of the limit and roll dialogs (empty: no limit), starting at
 * `initial`: the field, and `read()`, the limit typed (null: none), or undefined once the field
 * says why it is not one.
 */
function useLimitField(initial: number | null | undefined, label: string) {
  const [text, setText] = useState(limitInput(initial));
  const [error, setError] = useState<string | null>(null);
  const field = (
    <TextField
      label={label}
      inputMode="numeric"
      value={text}
      placeholder="No limit"
      hint="Requests (metered ai() calls) per billing cycle. Leave empty for no limit."
      error={error}
      onChange={(event) => {
        setText(event.target.value);
        setError(null);
      }}
    />
  );
  const read = (): number | null | undefined => {
    const parsed = parseLimit(text);
    if ("error" in parsed) {
      setError(parsed.error);
      return undefined;
    }
    return parsed.limit;
  };
  return { field, read };
}

function LimitModal({ open, apiKey, onClose }: { open: boolean; apiKey: Key; onClose: () => void }) {
  const limit = useLimitField(apiKey.monthlyLimit, "Monthly limit");
  const update = useUpdateApiKey();
  const submit = () => {
    const monthlyLimit = limit.read();
    if (monthlyLimit === undefined) return;
    update.mutate(
      { params: { path: { key_id: apiKey.id } }, body: { monthlyLimit } },
      { onSuccess: onClose },
    );
  };
  return (
    <Modal
      open={open}
      onClose={() => !update.isPending && onClose()}
      title={`Monthly limit of ${apiKey.masked}`}
      width="medium"
      footer={
        <>
          <Button variant="secondary" disabled={update.isPending} onClick={onClose}>
            Cancel
          </Button>
          <Button loading={update.isPending} onClick={submit}>
            Save limit
          </Button>
        </>
      }
    >
      <form
        className={page.stack}
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <p>
          Past its limit, the key's usage is refused until the billing cycle ends (HTTP 429
          <code> KeyLimitReached</code>), and the users who get usage alerts are emailed.
        </p>
        {limit.field}
        {update.isError ? <InfoBox variant="error" title={errorMessage(update.error)} /> : null}
      </form>
    </Modal>
  );
}

function RollModal({
  open,
  onClose,
  currentLimit,
}: {
  open: boolean;
  onClose: () => void;
  currentLimit: number | null;
}) {
  const [overlap, setOverlap] = useState<Overlap>("24h");
  const limit = useLimitField(currentLimit, "Monthly limit of the new key");
  const roll = useRollApiKey();
  const submit = () => {
    const monthlyLimit = limit.read();
    if (monthlyLimit === undefined) return;
    roll.mutate({ body: { overlap, monthlyLimit } }, { onSuccess: onClose });
  };
  return (
    <Modal
      open={open}
      onClose={() => !roll.isPending && onClose()}
      title="Roll API key"
      width="medium"
      footer={
        <>
          <Button variant="secondary" disabled={roll.isPending} onClick={onClose}>
            Cancel
          </Button>
          <Button loading={roll.isPending} onClick={submit}>
            Roll key
          </Button>
        </>
      }
    >
      <div className={page.stack}>
      <p>
        A new key replaces the current one. Keep the current key working while you update your
        tests:
      </p>
      <fieldset className={styles.choices}>
        <legend className={styles.label}>The current key keeps working for</legend>
        {OVERLAPS.map((o) => (
          <label key={o.value} className={styles.choice}>
            <input
              type="radio"
              name="overlap"
              checked={overlap === o.value}
              onChange={() => setOverlap(o.value)}
            />
            {o.label}
          </label>
        ))}
      </fieldset>
      {limit.field}
      {roll.isError ? <InfoBox variant="error" title={errorMessage(roll.error)} /> : null}
      </div>
    </Modal>
  );
}
