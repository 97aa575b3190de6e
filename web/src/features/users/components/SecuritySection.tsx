/**
 * Security: the single sign-on choice (SPEC 2, 4 "SSO setting", 5 "Other"; README "SAML single
 * sign-on").
 *
 * - none (email and password), google and saml; switching asks for confirmation first
 *   ('Enable Google Single Sign-on' / 'Disable Google Single Sign-on', 'Enable SAML Single
 *   Sign-on' / 'Disable SAML Single Sign-on'), and confirming changes the setting.
 * - google is disabled, with the reason as a tooltip, for Gmail addresses, for users who did
 *   not sign in with Google, and while the account has no verified domain (README "Verified
 *   domains"); the domain box below lists the domains and proves them.
 * - saml waits for a verified domain too; before the connection exists, choosing it opens its
 *   set-up (the SAML box below); once it exists, only a user who signed in through it can
 *   require it.
 * - only Owners and Admins change it (README "Roles and invitations"); for Members every option
 *   is disabled with the role's tooltip (the spec's tooltips above win where they apply). The
 *   SAML connection (setting it up, changing, removing, requiring and confirming it) is an
 *   Owner's alone (README "Security model", "Who someone is"); its test sign-in is for Admins
 *   too.
 */
import { useState } from "react";

import { ConfirmModal } from "@/components/ui/ConfirmModal";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { Panel } from "@/components/ui/Panel";
import { usePermissions } from "@/api/use-permissions";

import { useSamlSettings, useSetSamlRequirement } from "../api/saml";
import { useSetGoogleSso } from "../api/users";
import { SAML_AUTH_TYPE, samlBlockedReason } from "../lib/saml";
import { type SsoChoice, googleSsoBlockedReason } from "../lib/sso";

import { DomainsBox } from "./DomainsBox";
import { SamlBox } from "./SamlBox";
import { TwoStepRequirement } from "./TwoStepRequirement";

import styles from "./users.module.css";

interface Props {
  sso: { isGoogleSSO: boolean; isSamlSSO: boolean; domains: string[] };
  currentUser: { email: string; authType: string };
  /** The account's two-step sign-in requirement and who asks (its own part of Security). */
  twoStep?: Parameters<typeof TwoStepRequirement>[0];
}

/** The confirmation of a change of the choice: its title and what it says. */
function confirmation(current: SsoChoice, next: SsoChoice, domains: string): { title: string; text: string } {
  if (next === "google") {
    return {
      title: "Enable Google Single Sign-on",
      text: `Anyone with an email address at ${domains} will be able to join this account automatically by signing in with Google. Invitations by email are turned off while this is on.`,
    };
  }
  if (next === "saml") {
    return {
      title: "Enable SAML Single Sign-on",
      text: `Anyone with an email address at ${domains} signs in through your identity provider, and joins this account at their first sign-in. Password, Google and GitHub sign-in stop for this account's users, and invitations by email are turned off while this is on.`,
    };
  }
  return current === "saml"
    ? {
        title: "Disable SAML Single Sign-on",
        text: "Users can sign in with their email and password, Google or GitHub again; Sign in with SSO keeps working for those who use it. You can invite users by email again.",
      }
    : {
        title: "Disable Google Single Sign-on",
        text: "Users will no longer be able to join this account using Sign In with Google. Existing users keep their access, and you can invite users by email again.",
      };
}

export function SecuritySection({ sso, currentUser, twoStep }: Props) {
  const setGoogleSso = useSetGoogleSso();
  const setSamlSso = useSetSamlRequirement();
  const connected = Boolean(useSamlSettings().data?.connection);
  const current: SsoChoice = sso.isGoogleSSO ? "google" : sso.isSamlSSO ? "saml" : "none";
  const [pending, setPending] = useState<SsoChoice | null>(null);
  const [settingUp, setSettingUp] = useState(false);
  const permissions = usePermissions();
  const roleBlocked = permissions.whyNot("changeSso");
  const samlRoleBlocked = permissions.whyNot("changeSaml");
  // The spec's reasons first; once an option is on, only the role keeps anyone from turning it off.
  const googleBlocked =
    current === "google" ? roleBlocked : (googleSsoBlockedReason(currentUser, sso.domains) ?? roleBlocked);
  const samlBlocked =
    current === "saml"
      ? samlRoleBlocked
      : (samlRoleBlocked ?? samlBlockedReason(currentUser, sso.domains, connected));
  // Setting the connection up needs the role and a verified domain, not a SAML sign-in; a test
  // sign-in changes nothing, so Admins may run it too.
  const samlSetUpBlocked = samlRoleBlocked ?? samlBlockedReason(currentUser, sso.domains, false);
  const samlTestBlocked = roleBlocked ?? samlBlockedReason(currentUser, sso.domains, false);
  const domains = sso.domains.join(", ");
  // Google's requirement is POST /web/sso (SPEC 7), the SAML connection's its own route.
  const usesGoogle = pending === "google" || (pending === "none" && current === "google");
  // Leaving SAML for email and password is the SAML requirement's change: an Owner's.
  const mutation = usesGoogle ? setGoogleSso : setSamlSso;

  const choose = (value: SsoChoice) => {
    if (value === current) return;
    if (value === "saml" && !connected) setSettingUp(true);
    else setPending(value);
  };
  const close = () => {
    setPending(null);
    setGoogleSso.reset();
    setSamlSso.reset();
  };
  const done = { onSuccess: () => setPending(null) };
  const confirm = () =>
    usesGoogle
      ? setGoogleSso.mutate({ body: { requireGoogleSSO: pending === "google" } }, done)
      : setSamlSso.mutate({ body: { requireSamlSSO: pending === "saml" } }, done);

  const option = (value: SsoChoice, label: string, description: string, disabledReason: string | null) => (
    <DisabledReason reason={disabledReason} side="bottom" block>
      <label className={`${styles.option} ${disabledReason ? styles.optionDisabled : ""}`}>
        <input
          type="radio"
          name="sso"
          value={value}
          checked={current === value}
          disabled={Boolean(disabledReason)}
          onChange={() => choose(value)}
        />
        <span>
          <span className={styles.optionLabel}>{label}</span>
          <span className={styles.optionDescription}>{description}</span>
        </span>
      </label>
    </DisabledReason>
  );

  const asked = pending ? confirmation(current, pending, domains) : null;
  return (
    <Panel title="Security" description="Choose how the users of this account sign in.">
      <fieldset className={styles.options}>
        <legend className={styles.legend}>Single sign-on (SSO)</legend>
        {option(
          "none",
          "Email and password",
          "Users sign in with their email and password, Google or GitHub.",
          current === "saml" ? samlRoleBlocked : roleBlocked,
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
          sso.isSamlSSO
            ? `Required for ${domains}: users sign in through your identity provider.`
            : "Sign in through your identity provider (Okta, Microsoft Entra ID, Google Workspace).",
          samlBlocked,
        )}
      </fieldset>
      <SamlBox
        blocked={samlSetUpBlocked}
        testBlocked={samlTestBlocked}
        settingUp={settingUp}
        onSetUp={setSettingUp}
        signedInThroughIt={currentUser.authType === SAML_AUTH_TYPE}
      />
      <DomainsBox />
      {twoStep ? <TwoStepRequirement {...twoStep} /> : null}
      {asked ? (
        <ConfirmModal
          width="medium"
          title={asked.title}
          confirmLabel="Confirm"
          pending={mutation.isPending}
          error={mutation.error}
          onClose={close}
          onConfirm={confirm}
        >
          <p className={styles.lead}>{asked.text}</p>
        </ConfirmModal>
      ) : null}
    </Panel>
  );
}
