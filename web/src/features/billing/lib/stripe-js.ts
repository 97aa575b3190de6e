/**
 * Stripe.js for the card field of /payment (SPEC 2 "card entry supplied by a card payment
 * provider"), loaded only there.
 *
 * The script comes from GET /web/config's `jsUrl` (Stripe's in production, localstripe's in
 * the dev stack), injected here before @stripe/stripe-js's `loadStripe` runs: it then uses the
 * `window.Stripe` already present instead of injecting js.stripe.com itself.
 */
import type { Stripe } from "@stripe/stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";

import { CARD_FORM_LOAD_ERROR } from "./payment-errors";

let scriptLoad: Promise<void> | null = null;

function injectScript(src: string): Promise<void> {
  if (window.Stripe) return Promise.resolve();
  scriptLoad ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.addEventListener("load", () => resolve());
    script.addEventListener("error", () => {
      scriptLoad = null;
      script.remove();
      reject(new Error(CARD_FORM_LOAD_ERROR));
    });
    document.head.appendChild(script);
  });
  return scriptLoad;
}

export async function loadStripeFrom(jsUrl: string, publishableKey: string): Promise<Stripe> {
  await injectScript(jsUrl);
  const stripe = await loadStripe(publishableKey);
  if (!stripe) throw new Error(CARD_FORM_LOAD_ERROR);
  return stripe;
}
