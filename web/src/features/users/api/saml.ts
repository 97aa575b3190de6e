/**
 * SAML single sign-on (README "SAML single sign-on"): GET /web/sso/saml gives the values the
 * identity provider needs and the connection; saving, removing, requiring and confirming it
 * refetch it and the account and session (the account's `sso.isSamlSSO` decides what the
 * Security section offers). The test sign-in is started here and finished with what its window brings back.
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api, useRefetchAccountAndSession } from "@/api";

/** The service provider's values and the account's connection (null before set-up). */
export function useSamlSettings() {
  return $api.useQuery("get", "/web/sso/saml");
}

function useRefetchSaml(): () => Promise<unknown> {
  const queryClient = useQueryClient();
  const refetchAccount = useRefetchAccountAndSession();
  return () =>
    Promise.all([queryClient.invalidateQueries({ queryKey: ["get", "/web/sso/saml"] }), refetchAccount()]);
}

/** PUT /web/sso/saml: { metadataUrl } or { metadataXml }. */
export function useSaveSaml() {
  const refetch = useRefetchSaml();
  return $api.useMutation("put", "/web/sso/saml", { onSuccess: refetch });
}

/** DELETE /web/sso/saml. */
export function useRemoveSaml() {
  const refetch = useRefetchSaml();
  return $api.useMutation("delete", "/web/sso/saml", { onSuccess: refetch });
}

/** POST /web/sso/saml/requirement: { requireSamlSSO }. */
export function useSetSamlRequirement() {
  const refetch = useRefetchSaml();
  return $api.useMutation("post", "/web/sso/saml/requirement", { onSuccess: refetch });
}

/** POST /web/sso/saml/confirm-linking: an Owner lets the connection link existing users. */
export function useConfirmSamlLinking() {
  const refetch = useRefetchSaml();
  return $api.useMutation("post", "/web/sso/saml/confirm-linking", { onSuccess: refetch });
}

/** POST /web/sso/saml/test: the authorize URL to open in the test window. */
export function useStartSamlTest() {
  return $api.useMutation("post", "/web/sso/saml/test");
}

/** POST /web/sso/saml/test/result: what the identity provider sent, or what was wrong. */
export function useFinishSamlTest() {
  const queryClient = useQueryClient();
  return $api.useMutation("post", "/web/sso/saml/test/result", {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["get", "/web/sso/saml"] }),
  });
}
