/**
 * Security → 'Require two-step sign-in' (README "Two-step sign-in"): Owners require an
 * authenticator app of the account's password users, after a confirmation. An Owner who signs
 * in with a password sets it up for themselves first; everyone else sees why it is disabled.
 */
import { useState } from "react";

import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { usePermissions } from "@/api/use-permissions";

import { useSetTwoStepRequirement } from "../api/users";
import type { AccountUser } from "../lib/roles";

import own from "./two-step.module.css";
import styles from "./users.module.css";

const SET_UP_FIRST = "Set up two-step sign-in for yourself before requiring it.";

export function TwoStepRequirement({ required, currentUser }: { required: boolean; currentUser: AccountUser }) {
  const setRequirement = useSetTwoStepRequirement();
  const [confirming, setConfirming] = useState(false);
  const roleBlocked = usePermissions().whyNot("requireTwoStep");
  const blocked = roleBlocked ?? (!required && currentUser.twoStepSignIn === false ? SET_UP_FIRST : null);
  const close = () => {
    setConfirming(false);
    setRequirement.reset();
  };

  return (
    <fieldset className={`${styles.options} ${own.requirement}`}>
      <legend className={styles.legend}>Two-step sign-in</legend>
      <DisabledReason reason={blocked} side="bottom" block>
        <label className={`${styles.option} ${blocked ? styles.optionDisabled : ""}`}>
          <input
            type="checkbox"
            name="require-two-step"
            checked={required}
            disabled={blocked !== null}
            onChange={() => setConfirming(true)}
          />
          <span>
            <span className={styles.optionLabel}>Require two-step sign-in</span>
            <span className={styles.optionDescription}>
              Everyone who signs in with a password also enters a code from an authenticator app.
              Google, GitHub and SAML sign-ins rely on their identity provider&apos;s own second factor.
            </span>
          </span>
        </label>
      </DisabledReason>
      {confirming ? (
        <ConfirmModal
          width="medium"
          title={required ? "Stop requiring two-step sign-in" : "Require two-step sign-in"}
          confirmLabel="Confirm"
          pending={setRequirement.isPending}
          error={setRequirement.error}
          onClose={close}
          onConfirm={() => setRequirement.mutate({ body: { required: !required } }, { onSuccess: close })}
        >
          <p className={styles.lead}>
            {required
              ? "Users who sign in with a password will be able to turn two-step sign-in off. Those who have it keep it."
              : "Users who sign in with a password and have not set up two-step sign-in are signed out now, and set it up at their next sign-in before they can use the console."}
          </p>
        </ConfirmModal>
      ) : null}
    </fieldset>
  );
}
