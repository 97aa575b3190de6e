/**
 * SPEC 7: "After updates the account and session are fetched again." Every mutation of the
 * account's data passes this as its `onSuccess`; the returned promise resolves once both
 * queries refetched, so a mutation's success already shows the new state.
 */
import { useQueryClient } from "@tanstack/react-query";

export function useRefetchAccountAndSession(): () => Promise<unknown> {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["get", "/web/account"] }),
      queryClient.invalidateQueries({ queryKey: ["get", "/web/session"] }),
    ]);
}
