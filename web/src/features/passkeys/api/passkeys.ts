/**
 * The signed-in person's passkeys (docs/users/passkeys.md): the list (GET /web/passkeys),
 * adding one (a recent sign-in, the browser's prompt, then a name), renaming and removing.
 * Each change refetches the list.
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api } from "@/api";
import type { components } from "@/api/schema";

export type Passkey = components["schemas"]["PasskeyView"];

const KEY = ["get", "/web/passkeys"] as const;

function useRefetchPasskeys() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: KEY });
}

/** The person's passkeys, oldest first. */
export function usePasskeys() {
  return $api.useQuery("get", "/web/passkeys");
}

/**
 * Whether passkeys apply to the person and whether a code must come with the password: GET
 * /web/two-step-sign-in's `available` (false for who signs in with Google, GitHub or SAML, as
 * passkeys are) and `enabled`.
 */
export function useTwoStepState() {
  return $api.useQuery("get", "/web/two-step-sign-in");
}

/** POST /web/passkey-registration: the password (and the code) for the creation options. */
export function useStartRegistration() {
  return $api.useMutation("post", "/web/passkey-registration");
}

/** POST /web/passkeys: the browser's new credential under a name. */
export function useAddPasskey() {
  const refetch = useRefetchPasskeys();
  return $api.useMutation("post", "/web/passkeys", { onSettled: refetch });
}

/** PATCH /web/passkeys/{passkey_id}: a new name. */
export function useRenamePasskey() {
  const refetch = useRefetchPasskeys();
  return $api.useMutation("patch", "/web/passkeys/{passkey_id}", { onSettled: refetch });
}

/** DELETE /web/passkeys/{passkey_id}: it no longer signs in. */
export function useRemovePasskey() {
  const refetch = useRefetchPasskeys();
  return $api.useMutation("delete", "/web/passkeys/{passkey_id}", { onSettled: refetch });
}
