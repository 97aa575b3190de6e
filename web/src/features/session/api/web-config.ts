import { $api } from "@/api";

/** GET /web/config: public settings (identity provider, card provider); fixed per deploy. */
export function useWebConfig() {
  return $api.useQuery("get", "/web/config", undefined, {
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
  });
}
