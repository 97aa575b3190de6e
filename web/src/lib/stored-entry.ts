/**
 * Locally stored entries that carry their created and expiry timestamps (SPEC 9).
 *
 * An entry is kept as JSON `{ value, createdAt, expiresAt }`, both timestamps in epoch
 * milliseconds. Reading never throws: a missing, malformed or foreign value reads as null.
 * Whether an expired entry is still useful is the caller's decision (an expired access
 * token can still be refreshed), so `read` returns it and `isExpired` tells.
 */

export interface StoredEntry<T> {
  value: T;
  /** When the entry was written, epoch ms. */
  createdAt: number;
  /** When the value stops being valid, epoch ms. */
  expiresAt: number;
}

/** The part of the Web Storage API the entries need (localStorage satisfies it). */
export type KeyValueStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export type Clock = () => number;

export function writeEntry<T>(
  storage: KeyValueStorage,
  key: string,
  value: T,
  ttlMs: number,
  now: Clock = Date.now,
): StoredEntry<T> {
  const createdAt = now();
  const entry: StoredEntry<T> = { value, createdAt, expiresAt: createdAt + Math.max(0, ttlMs) };
  storage.setItem(key, JSON.stringify(entry));
  return entry;
}

export function readEntry<T>(
  storage: KeyValueStorage,
  key: string,
  isValue: (value: unknown) => value is T,
): StoredEntry<T> | null {
  let parsed: unknown;
  try {
    const raw = storage.getItem(key);
    if (raw === null) return null;
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { value, createdAt, expiresAt } = parsed as Record<string, unknown>;
  if (typeof createdAt !== "number" || typeof expiresAt !== "number" || !isValue(value)) {
    return null;
  }
  return { value, createdAt, expiresAt };
}

export function removeEntry(storage: KeyValueStorage, key: string): void {
  storage.removeItem(key);
}

/** True once `now` has reached the entry's expiry, less `skewMs` of headroom. */
export function isExpired(entry: StoredEntry<unknown>, now: number, skewMs = 0): boolean {
  return now >= entry.expiresAt - skewMs;
}
