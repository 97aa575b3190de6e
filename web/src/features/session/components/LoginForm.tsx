import { type FormEvent, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";

import { errorMessage, isApiError } from "@/api";
import type { components } from "@/api/schema";
import { Link } from "@/components/Link";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";
import { GitHubIcon, GoogleIcon, KeyIcon } from "@/components/provider-icons";
import { clearSignInNotice, peekSignInNotice } from "@/lib/sign-in-notice";

import { useSignIn, useSignInWithPasskey, useStartSso } from "../api/sign-in";
import { isPasswordExpired } from "../lib/sign-in-errors";
import { type NextStep, nextStep } from "../lib/two-step";
import { normalizeEmail, validateEmailOnly, validateLogin } from "../lib/validation";

import styles from "./forms.module.css";

const NEW_PASSWORD_REQUIRED = "NEW_PASSWORD_REQUIRED";
export const PASSKEY_EMAIL_REQUIRED = "Enter your email address, then sign in with a passkey.";
export const PASSKEY_NOT_ACCEPTED = "That passkey was not accepted.";
export const PASSKEY_CANCELLED = "Passkey sign-in was cancelled. Try again, or sign in with your password.";
export const PASSKEYS_UNSUPPORTED = "This browser does not support passkeys. Sign in with your password.";

interface LoginFormProps {
  initialEmail: string;
  /** Where to go once signed in. */
  next: string;
  onForgotPassword: (email: string) => void;
  onNewPasswordRequired: (challenge: { username: string; tempPassword: string; session: string }) => void;
  /** Two-step sign-in asks for its code, or for a set-up first (README "Two-step sign-in"). */
  onTwoStep: (step: NextStep, password: string) => void;
}

/**
 * The login mode of the login screen (SPEC 2), with 'Sign in with SSO' under the Google and
 * GitHub buttons (README "SAML single sign-on"): it asks for the work email and sends the
 * browser to the company's identity provider; a domain without one is refused above, with
 * the other choices still there. 'Sign in with a passkey' under the password form
 * (docs/users/passkeys.md "Signing in with a passkey") takes the Email field's address, which
 * Cognito needs, and continues as a password sign-in does; its code loads on the click.
 */
export function LoginForm({
  initialEmail,
  next,
  onForgotPassword,
  onNewPasswordRequired,
  onTwoStep,
}: LoginFormProps) {
  const navigate = useNavigate();
  const signIn = useSignIn();
  const passkeySignIn = useSignInWithPasskey();
  const [askingPasskey, setAskingPasskey] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState("");
  const [invalidField, setInvalidField] = useState<"email" | "password" | null>(null);
  // Why the API ended the last session (the sign-in policy), shown until the next attempt.
  const [error, setError] = useState<string | null>(peekSignInNotice);
  useEffect(clearSignInNotice, []);
  const [passwordExpired, setPasswordExpired] = useState(false);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const startSso = useStartSso();
  const [ssoOpen, setSsoOpen] = useState(false);
  const [workEmail, setWorkEmail] = useState(initialEmail);

  function handleSso(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateEmailOnly({ email: workEmail });
    if (problem) {
      setError(problem.message);
      return;
    }
    setError(null);
    startSso.mutate(
      { body: { email: normalizeEmail(workEmail), redirectUri: `${window.location.origin}/oauth/sso` } },
      {
        onSuccess: ({ authorizeUrl }) => window.location.assign(authorizeUrl),
        onError: (err) => setError(errorMessage(err)),
      },
    );
  }

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = validateLogin({ email, password });
    setInvalidField(problem?.field ?? null);
    if (problem) {
      setError(problem.message);
      (problem.field === "email" ? emailRef : passwordRef).current?.focus();
      return;
    }
    setError(null);
    setNote(null);
    setPasswordExpired(false);
    const username = normalizeEmail(email);
    signIn.mutate(
      { body: { email: username, password } },
      {
        onSuccess: (result) => continueSignIn(result, username, password),
        onError: (err) => {
          setError(errorMessage(err));
          setPasswordExpired(isPasswordExpired(err));
        },
      },
    );
  }

  /** What a sign-in's answer asks for next, the password's or a passkey's (which has none). */
  function continueSignIn(result: components["schemas"]["SignInResponse"], username: string, password: string) {
    const step = nextStep(result, username);
    if (step.kind === "signedIn") {
      void navigate(next, { replace: true });
    } else if (step.kind === "twoStepCode" || step.kind === "twoStepSetup") {
      onTwoStep(step, password);
    } else if (step.name === NEW_PASSWORD_REQUIRED) {
      onNewPasswordRequired({ username: step.username, tempPassword: password, session: step.session });
    } else {
      setError(`Unexpected sign-in challenge: ${step.name}`);
    }
  }

  async function handlePasskey() {
    setNote(null);
    setPasswordExpired(false);
    const username = normalizeEmail(email);
    if (!username) {
      setInvalidField("email");
      setError(PASSKEY_EMAIL_REQUIRED);
      emailRef.current?.focus();
      return;
    }
    setInvalidField(null);
    setError(null);
    setAskingPasskey(true);
    try {
      const prompt = await import("../lib/passkey-prompt");
      if (!prompt.passkeysSupported()) {
        setError(PASSKEYS_UNSUPPORTED);
        return;
      }
      let answer;
      try {
        answer = await prompt.askForPasskey(username);
      } catch (err) {
        if (prompt.isCancelled(err)) setNote(PASSKEY_CANCELLED);
        else setError(errorMessage(err));
        return;
      }
      passkeySignIn.mutate(
        { body: { email: username, ...answer } },
        {
          onSuccess: (result) => continueSignIn(result, username, ""),
          onError: (err) =>
            setError(isApiError(err) && err.code === "NotAuthorizedException" ? PASSKEY_NOT_ACCEPTED : errorMessage(err)),
        },
      );
    } catch (err) {
      setError(errorMessage(err)); // its code did not load
    } finally {
      setAskingPasskey(false);
    }
  }

  return (
    <>
      {error ? (
        <InfoBox
          variant="error"
          action={
            passwordExpired ? (
              <button type="button" className={styles.linkButton} onClick={() => onForgotPassword(email)}>
                Reset your password
              </button>
            ) : undefined
          }
        >
          {error}
        </InfoBox>
      ) : null}
      {note ? <InfoBox variant="info">{note}</InfoBox> : null}

      <div className={styles.providers}>
        <Button variant="secondary" size="lg" block icon={<GoogleIcon />} onClick={() => void navigate("/oauth/google/login")}>
          Sign in with Google
        </Button>
        <Button variant="secondary" size="lg" block icon={<GitHubIcon />} onClick={() => void navigate("/oauth/github/login")}>
          Sign in with GitHub
        </Button>
        {ssoOpen ? (
          <form className={styles.ssoForm} onSubmit={handleSso} noValidate aria-label="Sign in with SSO">
            <TextField
              label="Work email"
              type="email"
              name="work-email"
              autoComplete="username"
              placeholder="you@company.com"
              value={workEmail}
              onChange={(e) => setWorkEmail(e.target.value)}
              autoFocus
            />
            <Button type="submit" size="lg" block loading={startSso.isPending}>
              Continue with SSO
            </Button>
          </form>
        ) : (
          <Button variant="secondary" size="lg" block icon={<KeyIcon />} onClick={() => setSsoOpen(true)}>
            Sign in with SSO
          </Button>
        )}
      </div>

      <div className={styles.divider}>or continue with email</div>

      <form className={styles.form} onSubmit={handleSubmit} noValidate>
        <TextField
          ref={emailRef}
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          placeholder="you@company.com"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          aria-invalid={invalidField === "email" || undefined}
          autoFocus
        />
        <TextField
          ref={passwordRef}
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={invalidField === "password" || undefined}
          labelAside={
            <a
              href="#forgot-password"
              className={styles.forgot}
              onClick={(e) => {
                e.preventDefault();
                onForgotPassword(email);
              }}
            >
              Forgot your password?
            </a>
          }
        />
        <Button type="submit" size="lg" block loading={signIn.isPending}>
          Sign in with Email
        </Button>
      </form>
      <Button
        variant="secondary"
        size="lg"
        block
        loading={askingPasskey || passkeySignIn.isPending}
        onClick={() => void handlePasskey()}
      >
        Sign in with a passkey
      </Button>

      <p className={styles.footnote}>
        New here? <Link to="/registration">create your free account</Link>
      </p>
    </>
  );
}
