/**
 * The signed-in user's identity-provider tokens, kept in localStorage as one stored entry
 * (key `console.tokens`) whose expiry is the access token's (SPEC 9: "Sign-in validity is
 * checked by token expiry").
 */
import {
  type Clock,
  type KeyValueStorage,
  type StoredEntry,
  isExpired,
  readEntry,
  removeEntry,
  writeEntry,
} from "./stored-entry";

export const TOKENS_KEY = "console.tokens";

/** Refresh this long before the access token expires, so no request races the expiry. */
export const REFRESH_HEADROOM_MS = 60_000;

export interface Tokens {
  accessToken: string;
  idToken: string;
  refreshToken: string;
}

/** What the sign-in and refresh calls return; refresh may omit the refresh token. */
export interface IssuedTokens {
  accessToken: string;
  idToken: string;
  refreshToken?: string | null;
  /** Lifetime of the access token, seconds. */
  expiresIn: number;
}

function isTokens(value: unknown): value is Tokens {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.accessToken === "string" &&
    typeof v.idToken === "string" &&
    typeof v.refreshToken === "string" &&
    v.accessToken !== "" &&
    v.refreshToken !== ""
  );
}

export interface TokenStore {
  read(): StoredEntry<Tokens> | null;
  /**
   * Stores freshly issued tokens. A refresh response without a refresh token keeps the
   * stored one; with neither, nothing is stored and null is returned.
   */
  save(issued: IssuedTokens): StoredEntry<Tokens> | null;
  clear(): void;
  /** True when there is no usable access token `REFRESH_HEADROOM_MS` from now. */
  needsRefresh(entry: StoredEntry<Tokens>): boolean;
}

export function createTokenStore(
  getStorage: () => KeyValueStorage | undefined,
  now: Clock = Date.now,
): TokenStore {
  const storage = (): KeyValueStorage | undefined => {
    try {
      return getStorage();
    } catch {
      return undefined; // storage disabled by the browser: behave as signed out
    }
  };

  const store: TokenStore = {
    read() {
      const s = storage();
      return s ? readEntry(s, TOKENS_KEY, isTokens) : null;
    },
    save(issued) {
      const s = storage();
      if (!s) return null;
      const refreshToken = issued.refreshToken || store.read()?.value.refreshToken;
      if (!refreshToken) return null;
      const tokens: Tokens = {
        accessToken: issued.accessToken,
        idToken: issued.idToken,
        refreshToken,
      };
      return writeEntry(s, TOKENS_KEY, tokens, issued.expiresIn * 1000, now);
    },
    clear() {
      const s = storage();
      if (s) removeEntry(s, TOKENS_KEY);
    },
    needsRefresh(entry) {
      return isExpired(entry, now(), REFRESH_HEADROOM_MS);
    },
  };
  return store;
}

/** The browser's token store. */
export const tokenStore = createTokenStore(() =>
  typeof window === "undefined" ? undefined : window.localStorage,
);
