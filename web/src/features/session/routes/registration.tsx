/**
 * /registration (title 'Sign Up'): the registration form (SPEC 2 "Registration screen",
 * SPEC 4 "Registration", SPEC 5 rules, SPEC 8 messages) and the feature side panel.
 */
import { type FormEvent, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { useQueryClient } from "@tanstack/react-query";

import { ApiError, errorMessage } from "@/api";
import { Link } from "@/components/Link";
import { GitHubIcon, GoogleIcon } from "@/components/provider-icons";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { TextField } from "@/components/ui/TextField";
import { config } from "@/config";

import { useRegister } from "../api/registration";
import { sessionQueryOptions } from "../api/session";
import { AuthLayout } from "../components/AuthLayout";
import styles from "../components/forms.module.css";
import type { RegistrationErrors, RegistrationForm } from "../lib/registration-rules";

import layout from "./registration.module.css";

/** SPEC 8: a session-stored flag that makes registration fail on purpose after 1 s. */
export const FAIL_FLAG_KEY = "sb_wiz.qc";
const FAIL_FLAG_DELAY_MS = 1000;
/** SPEC 9: the redirect to sign-in after a failed auto sign-in. */
const SIGN_IN_REDIRECT_MS = 3000;

export const REGISTRATION_MESSAGES = {
  emailInUse: "This email address is already in use",
  invalidProvider: "Sorry, registration failed. Please use a business email address.",
  serverError:
    "Sorry - our server hit an error registering your account. Please try again or email support if the issue persists.",
  autoSignInFailed:
    "Your account is ready, but we could not sign you in automatically. Taking you to the sign-in page…",
} as const;

const EMPTY: RegistrationForm = {
  firstName: "",
  lastName: "",
  emailAddress: "",
  organizationName: "",
  newPassword: "",
};

type Processing = "form" | "google" | "github" | null;

/**
 * The form's rules with the free and disposable email domains they refuse (~4 KB gzip), needed
 * only once the form is sent: fetched when the page has mounted, not before its first paint
 * (the first-load budget, README "Performance"); a failed fetch is tried again on the next send.
 */
const importRules = () => import("../lib/registration-rules");
let rulesLoad: ReturnType<typeof importRules> | null = null;
function loadRules(): ReturnType<typeof importRules> {
  rulesLoad ??= importRules().catch((error: unknown) => {
    rulesLoad = null;
    throw error;
  });
  return rulesLoad;
}

function failFlagSet(): boolean {
  try {
    return Boolean(window.sessionStorage.getItem(FAIL_FLAG_KEY));
  } catch {
    return false;
  }
}

/** SPEC 8 "Registration" messages for a failed POST /web/registration. */
function registrationError(error: unknown): { field?: keyof RegistrationForm; message: string } {
  if (error instanceof ApiError) {
    if (error.code === "EmailInUse") return { field: "emailAddress", message: REGISTRATION_MESSAGES.emailInUse };
    if (error.code === "InvalidEmailProvider") return { message: REGISTRATION_MESSAGES.invalidProvider };
    if (error.status === 400 || error.status === 422) return { message: errorMessage(error) };
  }
  return { message: REGISTRATION_MESSAGES.serverError };
}

export function Component() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const register = useRegister();
  const [form, setForm] = useState<RegistrationForm>(EMPTY);
  const [errors, setErrors] = useState<RegistrationErrors>({});
  const [message, setMessage] = useState<string | null>(null);
  const [processing, setProcessing] = useState<Processing>(null);
  const timers = useRef<number[]>([]);
  /** A send waiting for the rules: a second one meanwhile is ignored as during processing. */
  const checking = useRef(false);

  useEffect(() => () => timers.current.forEach((t) => window.clearTimeout(t)), []);
  useEffect(() => void loadRules().catch(() => undefined), []);
  const later = (fn: () => void, ms: number) => {
    timers.current.push(window.setTimeout(fn, ms));
  };

  const field = (name: keyof RegistrationForm) => ({
    value: form[name],
    error: errors[name] ?? null,
    onChange: (e: { target: { value: string } }) => setForm((f) => ({ ...f, [name]: e.target.value })),
  });

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (processing || checking.current) return; // SPEC 4: one processing action at a time
    checking.current = true;
    loadRules()
      .then((rules) => send(rules))
      .catch(() => setMessage(REGISTRATION_MESSAGES.serverError))
      .finally(() => {
        checking.current = false;
      });
  }

  function send({ validateRegistration, normalizeRegistration }: Awaited<ReturnType<typeof importRules>>) {
    const problems = validateRegistration(form);
    setErrors(problems);
    setMessage(null);
    if (Object.keys(problems).length > 0) return;
    setProcessing("form");
    if (failFlagSet()) {
      later(() => {
        setMessage(REGISTRATION_MESSAGES.serverError);
        setProcessing(null);
      }, FAIL_FLAG_DELAY_MS);
      return;
    }
    register.mutate(
      { body: normalizeRegistration(form) },
      {
        onSuccess: () => {
          queryClient.fetchQuery(sessionQueryOptions()).then(
            () => void navigate("/", { replace: true }),
            () => {
              setMessage(REGISTRATION_MESSAGES.autoSignInFailed);
              later(() => void navigate("/login", { replace: true }), SIGN_IN_REDIRECT_MS);
            },
          );
        },
        onError: (err) => {
          const problem = registrationError(err);
          if (problem.field) setErrors({ [problem.field]: problem.message });
          else setMessage(problem.message);
          setProcessing(null);
        },
      },
    );
  }

  function signUpWith(provider: "google" | "github") {
    if (processing) return;
    setProcessing(provider);
    void navigate(`/oauth/${provider}/login`);
  }

  return (
    <div className={layout.page}>
      <div className={layout.main}>
        <AuthLayout
          wide
          title={`Create your ${config.productName} account`}
          subtitle="Sign up for free. No credit card required."
        >
          {message ? (
            <InfoBox variant={message === REGISTRATION_MESSAGES.autoSignInFailed ? "warning" : "error"}>
              {message}
            </InfoBox>
          ) : null}
          <div className={styles.providers}>
            <Button
              variant="secondary"
              size="lg"
              block
              icon={<GoogleIcon />}
              loading={processing === "google"}
              disabled={processing !== null}
              onClick={() => signUpWith("google")}
            >
              Sign up with Google
            </Button>
            <Button
              variant="secondary"
              size="lg"
              block
              icon={<GitHubIcon />}
              loading={processing === "github"}
              disabled={processing !== null}
              onClick={() => signUpWith("github")}
            >
              Sign up with GitHub
            </Button>
          </div>
          <div className={styles.divider}>or sign up with email</div>
          <form className={styles.form} onSubmit={handleSubmit} noValidate>
            <div className={layout.row}>
              <TextField label="First name" name="given-name" autoComplete="given-name" {...field("firstName")} />
              <TextField label="Last name" name="family-name" autoComplete="family-name" {...field("lastName")} />
            </div>
            <TextField
              label="Work email"
              type="email"
              name="email"
              autoComplete="email"
              placeholder="you@company.com"
              {...field("emailAddress")}
            />
            <TextField label="Company name" name="organization" autoComplete="organization" {...field("organizationName")} />
            <TextField
              label="Password"
              type="password"
              name="new-password"
              autoComplete="new-password"
              hint="At least 12 characters, with a number and a special character."
              {...field("newPassword")}
            />
            <Button type="submit" size="lg" block loading={processing === "form"} disabled={processing !== null}>
              Sign up
            </Button>
          </form>
          <p className={styles.footnote}>
            Already have an account? <Link to="/login">Sign in</Link>
          </p>
        </AuthLayout>
      </div>
      <aside className={layout.panel} data-testid="registration-panel">
        <h2>Everything you need to add AI steps to your browser tests</h2>
        <ul className={layout.features}>
          <li>Write steps in plain English with ai(&quot;…&quot;) inside your Playwright tests</li>
          <li>Free plan every month, no credit card required</li>
          <li>Usage per billing cycle for web, native mobile and API runs</li>
          <li>Invite your team and sign in with Google or GitHub</li>
        </ul>
      </aside>
    </div>
  );
}
