/**
 * User Management calls (SPEC 7): the users and SSO state come from GET /web/account; invite,
 * edit (names and role), delete, an invitation's Resend and Revoke (README "Roles and invitations") and the Google
 * SSO setting are mutations that refetch the account and the session afterwards ("After
 * updates the account and session are fetched again").
 */
import { useQueryClient } from "@tanstack/react-query";

import { $api, useRefetchAccountAndSession, useRefetchTwoStep } from "@/api";

/** The access tokens' list (README "Automation"), the same query as the Access tokens page's. */
const ACCESS_TOKENS_KEY = ["get", "/web/access-tokens"] as const;

/** The account's users, read from GET /web/account (the same cached query as the shell's). */
export function useAccountUsers() {
  return $api.useQuery("get", "/web/account", undefined, {
    select: (data) => data.account.users,
  });
}

/** The account's SSO state: { isGoogleSSO, domains }. */
export function useSso() {
  return $api.useQuery("get", "/web/account", undefined, {
    select: (data) => data.account.sso,
  });
}

/** The signed-in user's id and email (GET /web/session, already cached by the shell). */
export function useSessionUser() {
  return $api.useQuery("get", "/web/session", undefined, {
    select: (data) => data.session.user,
  });
}

/** POST /web/users: invite { firstName, lastName, email, role }. */
export function useInviteUser() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("post", "/web/users", { onSuccess: refetch });
}

/** PUT /web/users/{user_id}: the names, and the role when it changes. */
export function useUpdateUser() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("put", "/web/users/{user_id}", { onSuccess: refetch });
}

/**
 * DELETE /web/users/{user_id} (`keepAccessTokens=true`: an Owner keeps the tokens they made).
 * The access tokens are fetched again too: the removal revoked the user's, or marked their
 * creator removed.
 */
export function useDeleteUser() {
  const queryClient = useQueryClient();
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("delete", "/web/users/{user_id}", {
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ACCESS_TOKENS_KEY });
      return refetch();
    },
  });
}

/** POST /web/sso: { requireGoogleSSO }. */
export function useSetGoogleSso() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("post", "/web/sso", { onSuccess: refetch });
}

/** POST /web/users/{user_id}/invitation: Resend (a new temporary password; the old stops working). */
export function useResendInvitation() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("post", "/web/users/{user_id}/invitation", { onSuccess: refetch });
}

/** DELETE /web/users/{user_id}/invitation: Revoke (the pending user is removed). */
export function useRevokeInvitation() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("delete", "/web/users/{user_id}/invitation", { onSuccess: refetch });
}

/** DELETE /web/users/{user_id}/two-step-sign-in: reset it (they set it up again at their next sign-in). */
export function useResetTwoStep() {
  const refetch = useRefetchAccountAndSession();
  return $api.useMutation("delete", "/web/users/{user_id}/two-step-sign-in", { onSuccess: refetch });
}

/** Whether the account requires two-step sign-in (GET /web/account). */
export function useTwoStepRequired() {
  return $api.useQuery("get", "/web/account", undefined, {
    select: (data) => data.account.requireTwoStepSignIn,
  });
}

/**
 * PUT /web/two-step-sign-in/requirement: { required }. Also refetches the user's own two-step
 * state: its `requiredByAccount` decides whether they may turn it off.
 */
export function useSetTwoStepRequirement() {
  const refetch = useRefetchTwoStep();
  return $api.useMutation("put", "/web/two-step-sign-in/requirement", { onSuccess: refetch });
}

/**
 * GET /web/member-sessions: how many live sign-in sessions each user has (README "Sessions"),
 * by user id; asked only by those who may sign users out (Owners and Admins).
 */
export function useMemberSessions(enabled: boolean) {
  return $api.useQuery("get", "/web/member-sessions", undefined, {
    enabled,
    select: (data) => new Map(data.users.map((u) => [u.userId, u.activeSessions])),
  });
}

/** DELETE /web/member-sessions/{user_id}: sign a user out everywhere; the counts are fetched again. */
export function useEndMemberSessions() {
  const queryClient = useQueryClient();
  return $api.useMutation("delete", "/web/member-sessions/{user_id}", {
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["get", "/web/member-sessions"] }),
  });
}

