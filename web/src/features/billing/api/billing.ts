import { useQueryClient } from "@tanstack/react-query";

import { $api, useRefetchAccountAndSession } from "@/api";

/** The plan and the card on file, read from GET /web/account. */
export function useBillingSummary() {
  return $api.useQuery("get", "/web/account", undefined, {
    select: (data) => ({ subscription: data.account.subscription, card: data.account.billing }),
  });
}

/** POST /web/subscription: set the plan's units (0-20); a change may add an invoice. */
export function useUpdateSubscription() {
  const refetch = useRefetchAccountAndSession();
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/subscription", {
    onSuccess: () =>
      Promise.all([refetch(), queryClient.invalidateQueries({ queryKey: ["get", "/web/invoices"] })]),
  });
}

/**
 * GET /web/subscription/preview: what setting the plan to `units` would charge now and later
 * (README "Billing"). Fetched when the confirmation opens, never cached: the amount due today shrinks
 * as the billing cycle goes by, and the change must confirm the preview's proration date.
 */
export function useSubscriptionPreview(units: number, enabled: boolean) {
  return $api.useQuery(
    "get",
    "/web/subscription/preview",
    { params: { query: { units } } },
    { enabled, gcTime: 0, staleTime: 0, retry: false },
  );
}

/** POST /web/subscription/pay: pay the invoice that is past due with the card on file. */
export function usePayPastDue() {
  const refetch = useRefetchAccountAndSession();
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/subscription/pay", {
    onSuccess: () =>
      Promise.all([refetch(), queryClient.invalidateQueries({ queryKey: ["get", "/web/invoices"] })]),
  });
}

/** GET /web/invoices: a page of the account's invoices, newest first. */
export function useInvoices(startingAfter: string | undefined) {
  return $api.useQuery("get", "/web/invoices", {
    params: { query: startingAfter ? { startingAfter } : {} },
  });
}

/** POST /web/subscription/payment: the card of a Stripe.js token becomes the card on file. */
export function useUpdatePaymentMethod() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("post", "/web/subscription/payment", { onSuccess: refetch });
}

/** DELETE /web/subscription/payment: remove the card on file. */
export function useRemovePaymentMethod() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("delete", "/web/subscription/payment", { onSuccess: refetch });
}

/** Stripe.js settings from GET /web/config (fixed per deploy). */
export function useStripeConfig() {
  return $api.useQuery("get", "/web/config", undefined, {
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
    select: (data) => data.stripe,
  });
}
