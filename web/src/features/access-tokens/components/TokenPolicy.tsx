/**
 * The Owner's switch, 'Access tokens work in this account' (README "Automation"; PUT
 * /web/access-token-policy). Turning it off refuses every token of the account at once, so it
 * asks first; turning it on does not. Admins see the state, the switch disabled with the reason.
 */
import { Suspense, useId, useState } from "react";

import { errorMessage } from "@/api";
import { usePermissions } from "@/api/use-permissions";
import { preloaded } from "@/components/preloaded";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";

import { useSetAccessTokenPolicy } from "../api/access-tokens";

import styles from "./token-policy.module.css";

// Shown on request: a chunk of its own (the first-load budget, README "Performance").
const TurnOffTokensModal = preloaded(() => import("./TurnOffTokensModal").then((m) => m.TurnOffTokensModal));

export function TokenPolicy({ enabled }: { enabled: boolean }) {
  const turnOn = useSetAccessTokenPolicy();
  const [confirming, setConfirming] = useState(false);
  const blocked = usePermissions().whyNot("switchAccessTokens");
  const id = useId();

  return (
    <Panel title="Account policy">
      <div className={`${styles.switchRow} ${blocked ? styles.switchDisabled : ""}`}>
        <DisabledReason reason={blocked}>
          <input
            id={id}
            type="checkbox"
            role="switch"
            className={styles.switch}
            checked={enabled}
            disabled={blocked !== null || turnOn.isPending}
            aria-describedby={`${id}-text`}
            onChange={() => (enabled ? setConfirming(true) : turnOn.mutate({ body: { enabled: true } }))}
          />
        </DisabledReason>
        <span>
          <label htmlFor={id} className={styles.switchLabel}>
            Access tokens work in this account
          </label>
          <span id={`${id}-text`} className={styles.switchText}>
            {enabled
              ? "Turned off, every request made with one of the account's tokens is refused at once, and none can be created."
              : "Off: every request made with one of the account's tokens is refused, and none can be created. Turned on, the tokens work again until they expire."}
            {blocked ? " Only Owners can change this." : ""}
          </span>
        </span>
      </div>
      {turnOn.error ? (
        <InfoBox variant="error" className={styles.policyError}>
          {errorMessage(turnOn.error)}
        </InfoBox>
      ) : null}
      <Suspense fallback={null}>
        {confirming ? <TurnOffTokensModal onClose={() => setConfirming(false)} /> : null}
      </Suspense>
    </Panel>
  );
}
