/**
 * /login (title 'Login'): the login screen (SPEC 2, SPEC 4) with its four modes and two-step
 * sign-in's (README "Two-step sign-in"): the authenticator app's code or a recovery code, and
 * the set-up an account's requirement (or a reset, or a recovery code) asks for first. The
 * set-up, with its QR code library, loads only in that mode.
 */
import { useQueryClient } from "@tanstack/react-query";
import { Suspense, lazy, useEffect, useReducer, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";

import { Spinner } from "@/components/ui/Spinner";
import { tokenStore } from "@/lib/token-store";

import { sessionQueryOptions } from "../api/session";
import { signOutLocally } from "../api/sign-out";
import { AuthLayout } from "../components/AuthLayout";
import { CompleteForgotPasswordForm } from "../components/CompleteForgotPasswordForm";
import { ForgotPasswordForm } from "../components/ForgotPasswordForm";
import { LoginForm } from "../components/LoginForm";
import { NewPasswordForm } from "../components/NewPasswordForm";
import { TwoStepCodeForm } from "../components/TwoStepCodeForm";
import formStyles from "../components/forms.module.css";
import { initialLoginState, loginReducer } from "../lib/login-machine";
import { safeNext } from "../lib/login-redirect";
import type { NextStep } from "../lib/two-step";

const TwoStepSetup = lazy(() => import("../components/two-step/TwoStepSetup"));

/**
 * SPEC 2: "The login screen, on load, checks for an existing session. If the session call
 * succeeds it replaces the route with / [or `next`]; otherwise it signs out."
 * Returns true while that check runs.
 */
function useExistingSessionCheck(next: string): boolean {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [checking, setChecking] = useState(() => tokenStore.mayHaveSession());

  useEffect(() => {
    if (!tokenStore.mayHaveSession()) {
      signOutLocally(queryClient);
      return undefined;
    }
    let cancelled = false;
    queryClient.fetchQuery(sessionQueryOptions()).then(
      () => {
        if (!cancelled) void navigate(next, { replace: true });
      },
      () => {
        if (cancelled) return;
        signOutLocally(queryClient);
        setChecking(false);
      },
    );
    return () => {
      cancelled = true;
    };
    // Only on load: a later change of `next` must not re-run the check.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return checking;
}

const HEADINGS = {
  login: { title: "Sign in to your account", subtitle: "Welcome back! Choose how you sign in." },
  "forgot-password": {
    title: "Reset your password",
    subtitle: "Enter the email address of your account.",
  },
  "complete-forgot-password": { title: "Choose a new password", subtitle: undefined },
  "new-password-required": {
    title: "Choose a new password",
    subtitle: "Your temporary password must be changed before you continue.",
  },
  "two-step-code": {
    title: "Two-step sign-in",
    subtitle: "Enter the code your authenticator app shows, or one of your recovery codes.",
  },
  "two-step-setup": {
    title: "Set up two-step sign-in",
    subtitle: "Add an authenticator app to your sign-in before you continue.",
  },
} as const;

export function Component() {
  const [params] = useSearchParams();
  const next = safeNext(params.get("next")) ?? "/";
  const navigate = useNavigate();
  const [state, dispatch] = useReducer(loginReducer, initialLoginState);
  const backToLogin = () => dispatch({ type: "backToLogin" });
  /** SPEC 4: after a reset or a new password the user is signed in and goes to /. */
  const passwordChanged = () => {
    dispatch({ type: "passwordChanged" });
    void navigate("/", { replace: true });
  };
  const twoStep = (step: NextStep, password: string) => {
    if (step.kind === "twoStepSetup") dispatch({ type: "twoStepSetupRequired", username: step.username });
    else if (step.kind === "twoStepCode") {
      dispatch({ type: "twoStepCodeRequired", username: step.username, password, session: step.session });
    }
  };
  const signedIn = (step: NextStep) => {
    if (step.kind === "twoStepSetup") dispatch({ type: "twoStepSetupRequired", username: step.username });
    else void navigate(next, { replace: true });
  };
  const heading = HEADINGS[state.mode];
  const checking = useExistingSessionCheck(next);

  if (checking) {
    return (
      <AuthLayout title={HEADINGS.login.title}>
        <p className={formStyles.centered}>
          <Spinner size={18} /> Checking your session…
        </p>
      </AuthLayout>
    );
  }

  let body;
  switch (state.mode) {
    case "login":
      body = (
        <LoginForm
          initialEmail={state.username}
          next={next}
          onForgotPassword={(username) => dispatch({ type: "forgotPassword", username })}
          onNewPasswordRequired={(challenge) => dispatch({ type: "newPasswordRequired", ...challenge })}
          onTwoStep={twoStep}
        />
      );
      break;
    case "forgot-password":
      body = (
        <ForgotPasswordForm
          initialEmail={state.username}
          onCodeSent={(username) => dispatch({ type: "resetCodeSent", username })}
          onBackToLogin={backToLogin}
        />
      );
      break;
    case "new-password-required":
      body = (
        <NewPasswordForm
          username={state.username}
          challengeSession={state.challengeSession ?? ""}
          onDone={passwordChanged}
          onTwoStepSetup={() => dispatch({ type: "twoStepSetupRequired", username: state.username })}
          onBackToLogin={backToLogin}
        />
      );
      break;
    case "complete-forgot-password":
      body = (
        <CompleteForgotPasswordForm
          email={state.username}
          onDone={passwordChanged}
          onTwoStep={twoStep}
          onBackToLogin={backToLogin}
        />
      );
      break;
    case "two-step-code":
      body = (
        <TwoStepCodeForm
          username={state.username}
          password={state.tempPassword}
          challengeSession={state.challengeSession ?? ""}
          onSignedIn={signedIn}
          onBackToLogin={backToLogin}
        />
      );
      break;
    case "two-step-setup":
      body = (
        <Suspense fallback={<Spinner size={18} label="Loading" />}>
          <TwoStepSetup email={state.username} doneLabel="Continue" onDone={() => void navigate(next, { replace: true })} />
        </Suspense>
      );
      break;
  }

  return (
    <AuthLayout title={heading.title} subtitle={heading.subtitle}>
      {body}
    </AuthLayout>
  );
}
