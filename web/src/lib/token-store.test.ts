import { beforeEach, describe, expect, it } from "vitest";

import { MemoryStorage } from "./memory-storage";
import { isExpired, readEntry, writeEntry } from "./stored-entry";
import {
  REFRESH_HEADROOM_MS,
  SESSION_HINT_KEY,
  SESSION_HINT_TTL_MS,
  type TokenStore,
  createTokenStore,
} from "./token-store";

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

describe("stored entries", () => {
  it("carry created and expiry timestamps", () => {
    const storage = new MemoryStorage();
    const entry = writeEntry(storage, "k", { a: 1 }, 5_000, () => T0);
    expect(entry).toEqual({ value: { a: 1 }, createdAt: T0, expiresAt: T0 + 5_000 });
    expect(JSON.parse(storage.getItem("k") ?? "null")).toEqual(entry);
  });

  it("expire at their expiry, earlier by the skew", () => {
    const entry = { value: null, createdAt: T0, expiresAt: T0 + 10_000 };
    expect(isExpired(entry, T0 + 9_999)).toBe(false);
    expect(isExpired(entry, T0 + 10_000)).toBe(true);
    expect(isExpired(entry, T0 + 8_000, 2_000)).toBe(true);
    expect(isExpired(entry, T0 + 7_999, 2_000)).toBe(false);
  });

  it("read malformed or foreign values as null", () => {
    const storage = new MemoryStorage();
    const isString = (v: unknown): v is string => typeof v === "string";
    storage.setItem("bad-json", "{not json");
    storage.setItem("no-timestamps", JSON.stringify({ value: "x" }));
    storage.setItem("wrong-value", JSON.stringify({ value: 3, createdAt: T0, expiresAt: T0 }));
    expect(readEntry(storage, "missing", isString)).toBeNull();
    expect(readEntry(storage, "bad-json", isString)).toBeNull();
    expect(readEntry(storage, "no-timestamps", isString)).toBeNull();
    expect(readEntry(storage, "wrong-value", isString)).toBeNull();
  });
});

describe("token store", () => {
  let storage: MemoryStorage;
  let now: number;
  let store: TokenStore;

  beforeEach(() => {
    storage = new MemoryStorage();
    now = T0;
    store = createTokenStore(() => storage, () => now);
  });

  const issued = { accessToken: "access-1", idToken: "id-1", expiresIn: 3600 };

  it("keeps the tokens in memory with createdAt now and expiresAt from expiresIn", () => {
    expect(store.save(issued)).toEqual({
      value: { accessToken: "access-1", idToken: "id-1" },
      createdAt: T0,
      expiresAt: T0 + 3_600_000,
    });
    expect(store.read()?.value.accessToken).toBe("access-1");
  });

  it("writes no token to storage, only a timestamped note that a session exists", () => {
    store.save(issued);
    const stored = JSON.stringify([...["console.session", "console.tokens"].map((k) => storage.getItem(k))]);
    expect(stored).not.toContain("access-1");
    expect(stored).not.toContain("id-1");
    expect(JSON.parse(storage.getItem(SESSION_HINT_KEY) ?? "null")).toEqual({
      value: { signedIn: true },
      createdAt: T0,
      expiresAt: T0 + SESSION_HINT_TTL_MS,
    });
  });

  it("after a reload has no tokens but may restore the session until the note expires", () => {
    store.save(issued);
    const reloaded = createTokenStore(() => storage, () => now);
    expect(reloaded.read()).toBeNull();
    expect(reloaded.mayHaveSession()).toBe(true);
    now = T0 + SESSION_HINT_TTL_MS;
    expect(reloaded.mayHaveSession()).toBe(false);
  });

  it("needs a refresh only within the headroom before expiry", () => {
    const entry = store.save(issued);
    now = T0 + 3_600_000 - REFRESH_HEADROOM_MS - 1;
    expect(store.needsRefresh(entry)).toBe(false);
    now = T0 + 3_600_000 - REFRESH_HEADROOM_MS;
    expect(store.needsRefresh(entry)).toBe(true);
    now = T0 + 3_600_000 + 1;
    expect(store.needsRefresh(entry)).toBe(true);
  });

  it("clears the tokens and the note", () => {
    store.save(issued);
    store.clear();
    expect(store.read()).toBeNull();
    expect(store.mayHaveSession()).toBe(false);
    expect(storage.getItem(SESSION_HINT_KEY)).toBeNull();
  });

  it("keeps the session in memory when storage is unavailable", () => {
    const blocked = createTokenStore(() => {
      throw new Error("SecurityError");
    });
    expect(blocked.mayHaveSession()).toBe(false);
    expect(blocked.save(issued).value.accessToken).toBe("access-1");
    expect(blocked.mayHaveSession()).toBe(true);
    expect(() => blocked.clear()).not.toThrow();
    expect(blocked.read()).toBeNull();
  });
});
