export { $api, fetchClient, getAccessToken, isProtectedPath } from "./client";
export {
  ApiError,
  SERVER_ERROR_MESSAGE,
  errorMessage,
  isApiError,
  isEnvelope,
  type ErrorEnvelope,
} from "./errors";
export { useRefetchAccountAndSession, useRefetchTwoStep } from "./refetch";
export type { paths } from "./schema";
export type * from "./types";
