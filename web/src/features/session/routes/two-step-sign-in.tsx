/**
 * /two-step-sign-in (title 'Two-step sign-in', from the account menu of the sidebar; README
 * "Two-step sign-in"): the signed-in user's own authenticator app. Off: set it up (QR code,
 * key, a code to confirm, then the recovery codes once). On: since when, the recovery codes
 * left, new recovery codes and turning it off (both with the password and a current code; not
 * while the account requires it). Users who sign in with Google, GitHub or SAML are told their
 * identity provider's own second factor protects them.
 */
import { Suspense, lazy, useState } from "react";

import { errorMessage } from "@/api";
import page from "@/components/layout/page.module.css";
import { PageHeader } from "@/components/layout/PageHeader";
import { Button } from "@/components/ui/Button";
import { DisabledReason } from "@/components/ui/DisabledReason";
import { InfoBox } from "@/components/ui/InfoBox";
import { Panel } from "@/components/ui/Panel";
import { preloaded } from "@/components/preloaded";
import { Spinner } from "@/components/ui/Spinner";
import { dayLabel } from "@/lib/dates";

import { useSession } from "../api/session";
import { useDisableTwoStep, useRegenerateRecoveryCodes, useTwoStepSignIn } from "../api/two-step";

const TwoStepSetup = lazy(() => import("../components/two-step/TwoStepSetup"));
// The dialogs, opened on request: chunks of their own, fetched as this module runs (the
// first-load budget, README "Performance").
const ReauthenticateModal = preloaded(() =>
  import("../components/two-step/ReauthenticateModal").then((m) => m.ReauthenticateModal),
);
const NewRecoveryCodesModal = preloaded(() =>
  import("../components/two-step/NewRecoveryCodesModal").then((m) => m.NewRecoveryCodesModal),
);

const REQUIRED_REASON = "Your account requires two-step sign-in, so it cannot be turned off.";

export function Component() {
  const { data: status, error } = useTwoStepSignIn();
  const email = useSession().data?.session.user.email ?? "";
  const [settingUp, setSettingUp] = useState(false);
  const [dialog, setDialog] = useState<"regenerate" | "disable" | null>(null);
  const regenerate = useRegenerateRecoveryCodes();
  const disable = useDisableTwoStep();

  const close = () => {
    setDialog(null);
    regenerate.reset();
    disable.reset();
  };

  let body;
  if (error) body = <InfoBox variant="error">{errorMessage(error)}</InfoBox>;
  else if (!status) body = <Spinner size={18} label="Loading" />;
  else if (!status.available) {
    body = (
      <InfoBox variant="info">
        You sign in with an identity provider (Google, GitHub or your company's single sign-on):
        its own two-step verification protects your sign-in.
      </InfoBox>
    );
  } else if (settingUp || (!status.enabled && status.setupDue)) {
    body = (
      <Suspense fallback={<Spinner size={18} label="Loading" />}>
        <TwoStepSetup email={email} doneLabel="Done" onDone={() => setSettingUp(false)} />
      </Suspense>
    );
  } else if (!status.enabled) {
    body = (
      <div className={page.stack}>
        <p className={page.muted}>
          Two-step sign-in is off. Turn it on to sign in with your password and a 6-digit code
          from an authenticator app.
          {status.requiredByAccount ? " Your account requires it." : ""}
        </p>
        <div>
          <Button onClick={() => setSettingUp(true)}>Set up two-step sign-in</Button>
        </div>
      </div>
    );
  } else {
    const turnOffBlocked = status.requiredByAccount ? REQUIRED_REASON : null;
    body = (
      <dl className={page.details}>
        <dt>Status</dt>
        <dd>
          <span className={page.badge} data-testid="two-step-status">
            On
          </span>{" "}
          {status.enabledAt ? `since ${dayLabel(status.enabledAt)}` : null}
        </dd>
        <dt>Recovery codes</dt>
        <dd>
          <span data-testid="recovery-codes-left">{status.recoveryCodesLeft} of 10 left</span>{" "}
          <Button variant="secondary" onClick={() => setDialog("regenerate")}>
            New recovery codes
          </Button>
        </dd>
        <dt>Turn off</dt>
        <dd>
          <DisabledReason reason={turnOffBlocked}>
            <Button variant="danger" disabled={turnOffBlocked !== null} onClick={() => setDialog("disable")}>
              Turn off two-step sign-in
            </Button>
          </DisabledReason>
        </dd>
      </dl>
    );
  }

  return (
    <>
      <PageHeader title="Two-step sign-in" />
      <Panel
        title="Authenticator app"
        description="After your password, sign in with a code from an app on your phone."
      >
        {body}
      </Panel>
      <Suspense fallback={null}>
        {dialog === "regenerate" && regenerate.data ? (
          <NewRecoveryCodesModal codes={regenerate.data.recoveryCodes} email={email} onClose={close} />
        ) : dialog === "regenerate" ? (
          <ReauthenticateModal
            title="New recovery codes"
            description="Your current recovery codes stop working. Enter your password and a code from your authenticator app."
            confirmLabel="Get new codes"
            pending={regenerate.isPending}
            error={regenerate.error}
            onConfirm={(body) => regenerate.mutate({ body })}
            onClose={close}
          />
        ) : null}
        {dialog === "disable" ? (
          <ReauthenticateModal
            title="Turn off two-step sign-in"
            description="You will sign in with your password alone, and your recovery codes stop working. Enter your password and a code from your authenticator app."
            confirmLabel="Turn off"
            danger
            pending={disable.isPending}
            error={disable.error}
            onConfirm={(body) => disable.mutate({ body }, { onSuccess: close })}
            onClose={close}
          />
        ) : null}
      </Suspense>
    </>
  );
}
