/**
 * Domains of Google SSO (README "Verified domains"): GET /web/sso/domains lists them; adding, verifying and
 * removing one refetch the list, and the account and session (the account's `sso.domains`
 * are its verified domains, which decide whether the Google option is enabled).
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api, useRefetchAccountAndSession } from "@/api";

/** The account's domains with their state, last check and TXT record. */
export function useDomains() {
  return $api.useQuery("get", "/web/sso/domains", undefined, {
    select: (data) => data.domains,
  });
}

function useRefetchDomains(): () => Promise<unknown> {
  const queryClient = useQueryClient();
  const refetchAccount = useRefetchAccountAndSession();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["get", "/web/sso/domains"] }),
      refetchAccount(),
    ]);
}

/** POST /web/sso/domains: { domain }. */
export function useAddDomain() {
  const refetch = useRefetchDomains();
  return $api.useMutation("post", "/web/sso/domains", { onSuccess: refetch });
}

/** POST /web/sso/domains/{domain_id}/verify: looks the TXT record up now. */
export function useVerifyDomain() {
  const refetch = useRefetchDomains();
  return $api.useMutation("post", "/web/sso/domains/{domain_id}/verify", { onSuccess: refetch });
}

/** DELETE /web/sso/domains/{domain_id}. */
export function useRemoveDomain() {
  const refetch = useRefetchDomains();
  return $api.useMutation("delete", "/web/sso/domains/{domain_id}", { onSuccess: refetch });
}
