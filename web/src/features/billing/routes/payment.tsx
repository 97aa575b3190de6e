/**
 * /payment (title 'Payment'): update the payment method (SPEC 2 "Update payment page", SPEC 4
 * "Payment update: step 1 moves to step 2 on success", SPEC 7 "Card provider: createToken on
 * the card element returns a token id or an error message", SPEC 8 "Payment").
 *
 * The card field is Stripe's card element, mounted with @stripe/stripe-js directly (the
 * script from GET /web/config; localstripe's fake element has no update/focus, which
 * react-stripe-js needs). Only the token reaches our API.
 *
 * The card is billing, which only Owners change (README "Roles and invitations"); anyone else sees why instead of
 * the form (which would not even load Stripe.js), with the way back to Billing.
 */
import type { StripeCardElement, Stripe } from "@stripe/stripe-js";
import { type FormEvent, useEffect, useRef, useState } from "react";

import { isApiError } from "@/api";
import { config } from "@/config";
import { Link } from "@/components/Link";
import { Button } from "@/components/ui/Button";
import { InfoBox } from "@/components/ui/InfoBox";
import { Spinner } from "@/components/ui/Spinner";
import { usePermissions } from "@/api/use-permissions";

import { useStripeConfig, useUpdatePaymentMethod } from "../api/billing";
import { CARD_ERROR_CODES, CARD_FORM_LOAD_ERROR, paymentServerError } from "../lib/payment-errors";

import styles from "./payment.module.css";

const INCOMPLETE_CARD = "Please enter your card details.";

/** Stripe.js's loader, for the card form only (an Owner's): a chunk of its own, asked for as the
 * form mounts, beside its GET /web/config (the first-load budget, README "Performance"). */
const importStripeJs = () => import("../lib/stripe-js");

export function Component() {
  const [done, setDone] = useState(false);
  const blocked = usePermissions().whyNot("changeBilling");
  return (
    <main className={styles.page}>
      <div className={styles.card}>
        <h1 className={styles.title}>Payment Method</h1>
        {blocked ? (
          <InfoBox
            variant="warning"
            title={blocked}
            action={<Link to="/billing">Back to Billing</Link>}
          >
            Ask an Owner of this account to update the payment method.
          </InfoBox>
        ) : done ? (
          <div className={styles.success}>
            <p role="status">Congratulations! You&apos;ve successfully modified your payment method.</p>
            <Link to="/">Back to the console</Link>
          </div>
        ) : (
          <CardForm onDone={() => setDone(true)} />
        )}
      </div>
    </main>
  );
}

function CardForm({ onDone }: { onDone: () => void }) {
  const stripeConfig = useStripeConfig();
  const mountRef = useRef<HTMLDivElement>(null);
  const stripeRef = useRef<{ stripe: Stripe; card: StripeCardElement } | null>(null);
  const [ready, setReady] = useState(false);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [cardError, setCardError] = useState<string | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const [tokenizing, setTokenizing] = useState(false);
  const update = useUpdatePaymentMethod();

  const jsUrl = stripeConfig.data?.jsUrl;
  const publishableKey = stripeConfig.data?.publishableKey;
  useEffect(() => void importStripeJs().catch(() => undefined), []);
  useEffect(() => {
    if (!jsUrl || !publishableKey) return undefined;
    let cancelled = false;
    let card: StripeCardElement | null = null;
    importStripeJs()
      .catch(() => {
        throw new Error(CARD_FORM_LOAD_ERROR);
      })
      .then(({ loadStripeFrom }) => loadStripeFrom(jsUrl, publishableKey))
      .then((stripe) => {
        if (cancelled || !mountRef.current) return;
        const element = stripe.elements().create("card");
        element.mount(mountRef.current);
        // Stripe's element reports validation errors as the user types (SPEC 8).
        element.on("change", (event) => setCardError(event?.error?.message ?? null));
        card = element;
        stripeRef.current = { stripe, card: element };
        setReady(true);
      })
      .catch((err: unknown) => {
        if (!cancelled) setLoadError(err instanceof Error ? err.message : String(err));
      });
    return () => {
      cancelled = true;
      card?.destroy();
      stripeRef.current = null;
    };
  }, [jsUrl, publishableKey]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const loaded = stripeRef.current;
    if (!loaded) return;
    setServerError(null);
    setTokenizing(true);
    let tokenId: string;
    try {
      const result = await loaded.stripe.createToken(loaded.card);
      if (result.error || !result.token) {
        setCardError(result.error?.message ?? INCOMPLETE_CARD);
        return;
      }
      tokenId = result.token.id;
    } catch {
      setCardError(INCOMPLETE_CARD); // localstripe's element throws when nothing was typed
      return;
    } finally {
      setTokenizing(false);
    }
    setCardError(null);
    update.mutate(
      { body: { cardToken: tokenId } },
      {
        onSuccess: onDone,
        onError: (err) => {
          if (isApiError(err) && err.code && CARD_ERROR_CODES.has(err.code)) {
            setCardError(err.message); // Stripe's message, e.g. 'Your card was declined.'
          } else {
            setServerError(paymentServerError(isApiError(err) ? err.statusText : "Network Error"));
          }
        },
      },
    );
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      {serverError ? <InfoBox variant="error" title={serverError} /> : null}
      {loadError ? <InfoBox variant="error" title={loadError} /> : null}
      <label className={styles.label} htmlFor="card-element">
        Card
      </label>
      <div id="card-element" ref={mountRef} className={styles.cardField} data-testid="card-element">
        {!ready && !loadError ? <Spinner size={16} label="Loading the card form" /> : null}
      </div>
      {cardError ? (
        <p className={styles.fieldError} role="alert" data-testid="card-error">
          {cardError}
        </p>
      ) : null}
      <p className={styles.notice}>
        Your card will be charged monthly for your subscription. You can cancel at any time; there are
        no refunds or credits for partial months.
      </p>
      <p className={styles.terms}>
        By adding a card you agree to our{" "}
        <a href={config.termsUrl} target="_blank" rel="noreferrer">
          Terms of Service
        </a>{" "}
        and{" "}
        <a href={config.privacyUrl} target="_blank" rel="noreferrer">
          Privacy Policy
        </a>
        .
      </p>
      <div className={styles.actions}>
        <Link to="/billing">Cancel</Link>
        <Button type="submit" disabled={!ready} loading={tokenizing || update.isPending}>
          Update Payment Method
        </Button>
      </div>
    </form>
  );
}
