/**
 * The account's API keys (README "API keys") in Account Configuration: the current key masked
 * (`ak_…1a2b`) with Reveal and Copy (Copy works without revealing; both are recorded), when it
 * was last used and how many records it sent this cycle; Roll key with an overlap (now, 1 hour,
 * 24 hours, 7 days) during which the old key keeps working, shown with a countdown and Expire
 * now. SPEC 2's copy control stays: 'Copy API Key', then 'Copied!' for 2.5 s. Every role
 * reveals and copies; Roll key and Expire now are for Owners and Admins (README "Roles and
 * invitations"), disabled with the reason as a tooltip for Members.
 */
import { useEffect, useState } from "react";

import { errorMessage } from "@/api";
import type { components } from "@/api/schema";
import page from "@/components/layout/page.module.css";
import { Button } from "@/components/ui/Button";
import { CopyButton } from "@/components/ui/CopyButton";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Modal } from "@/components/ui/Modal";
import { usePermissions } from "@/api/use-permissions";

import { revealApiKey, useApiKeys, useExpireApiKey, useRollApiKey } from "../api/account";
import { countdown, lastUsedText } from "../lib/api-keys";

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
      <RollModal open={rolling} onClose={() => setRolling(false)} />
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
      {error ? (
        <p role="alert" className={styles.error}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

function RollModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [overlap, setOverlap] = useState<Overlap>("24h");
  const roll = useRollApiKey();
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
          <Button
            loading={roll.isPending}
            onClick={() => roll.mutate({ body: { overlap } }, { onSuccess: onClose })}
          >
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
      {roll.isError ? <InfoBox variant="error" title={errorMessage(roll.error)} /> : null}
      </div>
    </Modal>
  );
}

/** The current time, updated every `everyMs` (countdowns and "last used"). */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}
