/**
 * The signed-in user's identity-provider tokens (README "Where tokens live", ARCHITECTURE "Identity").
 *
 * - The access and ID tokens live in memory only: no script can read them from storage.
 * - The refresh token never reaches script at all: the API keeps it in an httpOnly cookie
 *   that only `POST /web/session/refresh` receives.
 * - localStorage holds one non-secret stored entry, `console.session` (SPEC 9: created and
 *   expiry timestamps), saying that a session may exist. A reloaded page that sees it restores
 *   the session through the refresh call; a visitor without it is sent to /login at once,
 *   with no request. Its expiry is the refresh token's validity, an upper bound: the cookie
 *   decides.
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

export const SESSION_HINT_KEY = "console.session";

/** The app client's refresh token validity (Cognito's default, 30 days). */
export const SESSION_HINT_TTL_MS = 30 * 24 * 3_600_000;

/** Refresh this long before the access token expires, so no request races the expiry. */
export const REFRESH_HEADROOM_MS = 60_000;

export interface Tokens {
  accessToken: string;
  idToken: string;
}

/** What the sign-in and refresh calls return. */
export interface IssuedTokens extends Tokens {
  /** Lifetime of the access token, seconds. */
  expiresIn: number;
}

interface SessionHint {
  signedIn: true;
}

function isSessionHint(value: unknown): value is SessionHint {
  return typeof value === "object" && value !== null && (value as SessionHint).signedIn === true;
}

export interface TokenStore {
  /** The tokens in memory, with the access token's timestamps; null when there are none. */
  read(): StoredEntry<Tokens> | null;
  /** Keeps freshly issued tokens in memory and notes that a session exists. */
  save(issued: IssuedTokens): StoredEntry<Tokens>;
  /** Forgets the tokens and the note (local sign-out). */
  clear(): void;
  /** True when tokens are in memory, or a reload may restore a session through the refresh call. */
  mayHaveSession(): boolean;
  /** True when there is no usable access token `REFRESH_HEADROOM_MS` from now. */
  needsRefresh(entry: StoredEntry<Tokens>): boolean;
}

export function createTokenStore(
  getStorage: () => KeyValueStorage | undefined,
  now: Clock = Date.now,
): TokenStore {
  let tokens: StoredEntry<Tokens> | null = null;

  const storage = (): KeyValueStorage | undefined => {
    try {
      return getStorage();
    } catch {
      return undefined; // storage disabled by the browser: the session lasts until a reload
    }
  };

  return {
    read() {
      return tokens;
    },
    save({ accessToken, idToken, expiresIn }) {
      const createdAt = now();
      tokens = { value: { accessToken, idToken }, createdAt, expiresAt: createdAt + expiresIn * 1000 };
      const s = storage();
      if (s) writeEntry<SessionHint>(s, SESSION_HINT_KEY, { signedIn: true }, SESSION_HINT_TTL_MS, now);
      return tokens;
    },
    clear() {
      tokens = null;
      const s = storage();
      if (s) removeEntry(s, SESSION_HINT_KEY);
    },
    mayHaveSession() {
      if (tokens) return true;
      const s = storage();
      const hint = s ? readEntry(s, SESSION_HINT_KEY, isSessionHint) : null;
      return hint !== null && !isExpired(hint, now());
    },
    needsRefresh(entry) {
      return isExpired(entry, now(), REFRESH_HEADROOM_MS);
    },
  };
}

/** The browser's token store. */
export const tokenStore = createTokenStore(() =>
  typeof window === "undefined" ? undefined : window.localStorage,
);
