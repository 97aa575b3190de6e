import { $api } from "@/api";

/** The plan and the card on file, read from GET /web/account. */
export function useBillingSummary() {
  return $api.useQuery("get", "/web/account", undefined, {
    select: (data) => ({ subscription: data.account.subscription, card: data.account.billing }),
  });
}
