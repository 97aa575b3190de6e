/**
 * Two-step sign-in calls (README "Two-step sign-in"): answering a sign-in's code challenge or
 * signing in with a recovery code (tokens are stored as on sign-in), and the signed-in user's
 * own set-up, recovery codes and turning it off.
 */
import { $api, useRefetchTwoStep } from "@/api";

import { useStoreTokens } from "./password";

/** POST /web/session/two-step-code: the authenticator app's code for a sign-in's challenge. */
export function useAnswerTwoStepCode() {
  const storeTokens = useStoreTokens();
  return $api.useMutation("post", "/web/session/two-step-code", { onSuccess: storeTokens });
}

/** POST /web/session/recovery-code: email, password and a recovery code. */
export function useRecoveryCodeSignIn() {
  const storeTokens = useStoreTokens();
  return $api.useMutation("post", "/web/session/recovery-code", { onSuccess: storeTokens });
}

/** GET /web/two-step-sign-in: the signed-in user's two-step sign-in. */
export function useTwoStepSignIn() {
  return $api.useQuery("get", "/web/two-step-sign-in", undefined, {
    select: (data) => data.twoStepSignIn,
  });
}

/** POST /web/two-step-sign-in/setup: a new secret for an authenticator app. */
export function useStartTwoStepSetup() {
  return $api.useMutation("post", "/web/two-step-sign-in/setup");
}

/** POST /web/two-step-sign-in/setup/confirm: a code of the new secret; returns the recovery codes. */
export function useConfirmTwoStepSetup() {
  const refetch = useRefetchTwoStep();
  return $api.useMutation("post", "/web/two-step-sign-in/setup/confirm", { onSuccess: refetch });
}

/** POST /web/two-step-sign-in/recovery-codes: password and a current code; a new set. */
export function useRegenerateRecoveryCodes() {
  const refetch = useRefetchTwoStep();
  return $api.useMutation("post", "/web/two-step-sign-in/recovery-codes", { onSuccess: refetch });
}

/** POST /web/two-step-sign-in/disable: password and a current code. */
export function useDisableTwoStep() {
  const refetch = useRefetchTwoStep();
  return $api.useMutation("post", "/web/two-step-sign-in/disable", { onSuccess: refetch });
}
