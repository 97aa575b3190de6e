import { useQueryClient } from "@tanstack/react-query";

import { $api, fetchClient, useRefetchAccountAndSession } from "@/api";
import { saveDownload } from "@/lib/download";

export { accountQueryOptions, useAccount } from "./account-query";
export { cycleUsageQueryOptions, useCycleUsage, usageJson } from "./cycle-usage-query";

/**
 * PUT /web/account: rename the account. On success the account and the session (whose
 * account name the sidebar shows) are fetched again (SPEC 7 "After updates the account and
 * session are fetched again").
 */
export function useUpdateAccountName() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("put", "/web/account", { onSuccess: refetch });
}

/** GET /web/usage-alerts: the thresholds that send a usage alert and who gets them (README "Usage alerts and export"). */
export function useUsageAlerts() {
  return $api.useQuery("get", "/web/usage-alerts");
}

/** PUT /web/usage-alerts: set the thresholds and recipients. */
export function useUpdateUsageAlerts() {
  const queryClient = useQueryClient();
  return $api.useMutation("put", "/web/usage-alerts", {
    onSuccess: (data) => queryClient.setQueryData(["get", "/web/usage-alerts"], data),
  });
}

/**
 * GET /web/usage/export: one billing cycle's usage per day and platform as CSV, with the
 * requests per API key and per value of `label`, saved as a download. Through the API client
 * (it carries the access token), read as a Blob.
 */
export async function downloadUsageCsv(cycleStartMs: number, label?: string | null): Promise<void> {
  const { data, error, response } = await fetchClient.GET("/web/usage/export", {
    params: { query: { cycleStartMs, ...(label ? { label } : {}) } },
    parseAs: "blob",
  });
  if (error !== undefined || !(data instanceof Blob)) throw error ?? new Error("No CSV received");
  saveDownload(data, response, "usage.csv");
}

/** GET /web/usage/limits: keep running or stop at the plan's allowance (README "Metering intake"). */
export function useUsageLimits() {
  return $api.useQuery("get", "/web/usage/limits");
}

/** PUT /web/usage/limits: choose keep running or stop at the allowance. */
export function useUpdateUsageLimits() {
  const queryClient = useQueryClient();
  return $api.useMutation("put", "/web/usage/limits", {
    onSuccess: (data) => queryClient.setQueryData(["get", "/web/usage/limits"], data),
  });
}

/** GET /web/api-keys: the account's working keys, current first, masked (README "API keys"). */
export function useApiKeys() {
  return $api.useQuery("get", "/web/api-keys");
}

/** POST /web/api-keys/roll: a new current key; the old keeps working for the overlap. */
export function useRollApiKey() {
  const queryClient = useQueryClient();
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("post", "/web/api-keys/roll", {
    onSuccess: (data) => {
      queryClient.setQueryData(["get", "/web/api-keys"], data);
      return refetch();
    },
  });
}

/** PATCH /web/api-keys/{key_id}: set the key's monthly limit of requests (null: none). */
export function useUpdateApiKey() {
  const queryClient = useQueryClient();
  return $api.useMutation("patch", "/web/api-keys/{key_id}", {
    onSuccess: (data) => queryClient.setQueryData(["get", "/web/api-keys"], data),
  });
}

/** POST /web/api-keys/{key_id}/expire: the key stops working now. */
export function useExpireApiKey() {
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/api-keys/{key_id}/expire", {
    onSuccess: (data) => queryClient.setQueryData(["get", "/web/api-keys"], data),
  });
}

/** POST /web/api-keys/{key_id}/reveal: the key itself, to show or to copy (recorded). */
export async function revealApiKey(keyId: string, purpose: "reveal" | "copy"): Promise<string> {
  const { data, error } = await fetchClient.POST("/web/api-keys/{key_id}/reveal", {
    params: { path: { key_id: keyId } },
    body: { purpose },
  });
  if (error !== undefined || !data) throw error ?? new Error("No key received");
  return data.key;
}
