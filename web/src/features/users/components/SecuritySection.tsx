/**
 * Security: the single sign-on choice (SPEC 2, 4 "SSO setting", 5 "Other").
 *
 * - none (email and password) and google are backed by POST /web/sso; switching either way
 *   asks for confirmation first ('Enable Google Single Sign-on' / 'Disable Google Single
 *   Sign-on'), and confirming toggles the setting.
 * - google is disabled, with the reason as a tooltip, for Gmail addresses, for users who did
 *   not sign in with Google, and while the account has no verified domain (README "Verified
 *   domains"); the domain box below lists the domains and proves them.
 * - saml is not built: it is shown disabled with a tooltip saying how to get it.
 * - only Owners and Admins change it (README "Roles and invitations"); for Members every option
 *   is disabled with the role's tooltip (the spec's tooltips above win where they apply).
 */
import { useState } from "react";

import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { Panel } from "@/components/ui/Panel";
import { usePermissions } from "@/api/use-permissions";

import { useSetGoogleSso } from "../api/users";
import { type SsoChoice, googleSsoBlockedReason } from "../lib/sso";

import { DomainsBox } from "./DomainsBox";
import { TwoStepRequirement } from "./TwoStepRequirement";

import styles from "./users.module.css";

export const SAML_TOOLTIP =
  "SAML single sign-on is available on request: email support to set it up for your account.";

interface Props {
  sso: { isGoogleSSO: boolean; domains: string[] };
  currentUser: { email: string; authType: string };
  /** The account's two-step sign-in requirement and who asks (its own part of Security). */
  twoStep?: Parameters<typeof TwoStepRequirement>[0];
}

export function SecuritySection({ sso, currentUser, twoStep }: Props) {
  const setGoogleSso = useSetGoogleSso();
  const current: SsoChoice = sso.isGoogleSSO ? "google" : "none";
  const [pending, setPending] = useState<SsoChoice | null>(null);
  const roleBlocked = usePermissions().whyNot("changeSso");
  // The spec's reasons first; once Google SSO is on, only the role keeps anyone from turning it off.
  const googleBlocked =
    current === "google"
      ? roleBlocked
      : (googleSsoBlockedReason(currentUser, sso.domains) ?? roleBlocked);
  const domains = sso.domains.join(", ");

  const close = () => {
    setPending(null);
    setGoogleSso.reset();
  };
  const confirm = () =>
    setGoogleSso.mutate(
      { body: { requireGoogleSSO: pending === "google" } },
      { onSuccess: () => setPending(null) },
    );

  const option = (
    value: SsoChoice,
    label: string,
    description: string,
    disabledReason: string | null,
  ) => (
    <DisabledReason reason={disabledReason} side="bottom" block>
      <label className={`${styles.option} ${disabledReason ? styles.optionDisabled : ""}`}>
        <input
          type="radio"
          name="sso"
          value={value}
          checked={current === value}
          disabled={Boolean(disabledReason)}
          onChange={() => value !== current && setPending(value)}
        />
        <span>
          <span className={styles.optionLabel}>{label}</span>
          <span className={styles.optionDescription}>{description}</span>
        </span>
      </label>
    </DisabledReason>
  );

  return (
    <Panel title="Security" description="Choose how the users of this account sign in.">
      <fieldset className={styles.options}>
        <legend className={styles.legend}>Single sign-on (SSO)</legend>
        {option(
          "none",
          "Email and password",
          "Users sign in with their email and password, Google or GitHub.",
          roleBlocked,
        )}
        {option(
          "google",
          "Google",
          sso.isGoogleSSO
            ? sso.domains.length > 0
              ? `Required for ${domains}: users sign in with Google.`
              : "Required: users sign in with Google. Joining is paused until a domain is verified."
            : "Require sign-in with Google; anyone at your verified domains can join.",
          googleBlocked,
        )}
        {option(
          "saml",
          "SAML",
          "Sign in through your identity provider (Okta, Azure AD...).",
          SAML_TOOLTIP,
        )}
      </fieldset>
      <DomainsBox />
      {twoStep ? <TwoStepRequirement {...twoStep} /> : null}
      {pending ? (
        <ConfirmModal
          width="medium"
          title={
            pending === "google" ? "Enable Google Single Sign-on" : "Disable Google Single Sign-on"
          }
          confirmLabel="Confirm"
          pending={setGoogleSso.isPending}
          error={setGoogleSso.error}
          onClose={close}
          onConfirm={confirm}
        >
          <p className={styles.lead}>
            {pending === "google"
              ? `Anyone with an email address at ${domains} will be able to join this account automatically by signing in with Google. Invitations by email are turned off while this is on.`
              : "Users will no longer be able to join this account using Sign In with Google. Existing users keep their access, and you can invite users by email again."}
          </p>
        </ConfirmModal>
      ) : null}
    </Panel>
  );
}
