import { $api } from "@/api";

/** GET /web/account: the whole account of the signed-in user. */
export function useAccount() {
  return $api.useQuery("get", "/web/account");
}
