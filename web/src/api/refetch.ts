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

/**
 * Refetch the two-step state (GET /web/two-step-sign-in), the account (its users list shows it)
 * and the session: after the user's own two-step changes and the account's requirement (whose
 * `requiredByAccount` decides whether the user may turn it off).
 */
export function useRefetchTwoStep(): () => Promise<unknown> {
  const queryClient = useQueryClient();
  const refetchAccount = useRefetchAccountAndSession();
  return () => {
    void queryClient.invalidateQueries({ queryKey: ["get", "/web/two-step-sign-in"] });
    return refetchAccount();
  };
}
