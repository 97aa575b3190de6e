import { $api } from "@/api";

/** The account's users, read from GET /web/account (the same cached query as the shell's). */
export function useAccountUsers() {
  return $api.useQuery("get", "/web/account", undefined, {
    select: (data) => data.account.users,
  });
}
