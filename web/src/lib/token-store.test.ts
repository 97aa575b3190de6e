import { beforeEach, describe, expect, it } from "vitest";

import { MemoryStorage } from "./memory-storage";
import { isExpired, readEntry, writeEntry } from "./stored-entry";
import { REFRESH_HEADROOM_MS, TOKENS_KEY, type TokenStore, createTokenStore } from "./token-store";

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

  const issued = { accessToken: "access-1", idToken: "id-1", refreshToken: "refresh-1", expiresIn: 3600 };

  it("stores the tokens under console.tokens with createdAt now and expiresAt from expiresIn", () => {
    store.save(issued);
    const raw: unknown = JSON.parse(storage.getItem(TOKENS_KEY) ?? "null");
    expect(raw).toEqual({
      value: { accessToken: "access-1", idToken: "id-1", refreshToken: "refresh-1" },
      createdAt: T0,
      expiresAt: T0 + 3_600_000,
    });
    expect(store.read()?.value.accessToken).toBe("access-1");
  });

  it("needs a refresh only within the headroom before expiry", () => {
    const entry = store.save(issued);
    if (!entry) throw new Error("not saved");
    now = T0 + 3_600_000 - REFRESH_HEADROOM_MS - 1;
    expect(store.needsRefresh(entry)).toBe(false);
    now = T0 + 3_600_000 - REFRESH_HEADROOM_MS;
    expect(store.needsRefresh(entry)).toBe(true);
    now = T0 + 3_600_000 + 1;
    expect(store.needsRefresh(entry)).toBe(true);
  });

  it("keeps an expired entry readable so it can still be refreshed", () => {
    store.save(issued);
    now = T0 + 10 * 3_600_000;
    expect(store.read()?.value.refreshToken).toBe("refresh-1");
  });

  it("keeps the stored refresh token when a refresh returns none, with new timestamps", () => {
    store.save(issued);
    now = T0 + 3_000_000;
    const entry = store.save({ accessToken: "access-2", idToken: "id-2", refreshToken: null, expiresIn: 60 });
    expect(entry).toEqual({
      value: { accessToken: "access-2", idToken: "id-2", refreshToken: "refresh-1" },
      createdAt: T0 + 3_000_000,
      expiresAt: T0 + 3_060_000,
    });
  });

  it("stores nothing without any refresh token", () => {
    expect(store.save({ ...issued, refreshToken: null })).toBeNull();
    expect(store.read()).toBeNull();
  });

  it("clears the tokens", () => {
    store.save(issued);
    store.clear();
    expect(store.read()).toBeNull();
    expect(storage.getItem(TOKENS_KEY)).toBeNull();
  });

  it("behaves as signed out when storage is unavailable", () => {
    const blocked = createTokenStore(() => {
      throw new Error("SecurityError");
    });
    expect(blocked.read()).toBeNull();
    expect(blocked.save(issued)).toBeNull();
    expect(() => blocked.clear()).not.toThrow();
  });
});
