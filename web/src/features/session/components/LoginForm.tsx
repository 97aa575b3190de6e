import { type FormEvent, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";

import { errorMessage } from "@/api";
import { Link } from "@/components/Link";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";
import { GitHubIcon, GoogleIcon, KeyIcon } from "@/components/provider-icons";
import { clearSignInNotice, peekSignInNotice } from "@/lib/sign-in-notice";

import { useSignIn, useStartSso } from "../api/sign-in";
import { isPasswordExpired } from "../lib/sign-in-errors";
import { type NextStep, nextStep } from "../lib/two-step";
import { normalizeEmail, validateEmailOnly, validateLogin } from "../lib/validation";

import styles from "./forms.module.css";

const NEW_PASSWORD_REQUIRED = "NEW_PASSWORD_REQUIRED";

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
 * the other choices still there.
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
    setPasswordExpired(false);
    const username = normalizeEmail(email);
    signIn.mutate(
      { body: { email: username, password } },
      {
        onSuccess: (result) => {
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
        },
        onError: (err) => {
          setError(errorMessage(err));
          setPasswordExpired(isPasswordExpired(err));
        },
      },
    );
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

      <p className={styles.footnote}>
        New here? <Link to="/registration">create your free account</Link>
      </p>
    </>
  );
}
