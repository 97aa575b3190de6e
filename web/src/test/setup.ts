/**
 * Set-up of every route test (vite.config.ts, project "routes"): the fake API answers `fetch`
 * before any module of the app is loaded (openapi-fetch keeps the `fetch` it finds when the
 * client is created), and each test starts signed out, with an empty query cache, empty
 * storage and an empty page.
 */
import { cleanup, configure } from "@testing-library/preact";
import { afterEach, beforeEach, expect } from "vitest";

import { queryClient } from "@/api/query-client";
import { tokenStore } from "@/lib/token-store";

import { api, resetApi } from "./fake-api";

globalThis.fetch = (input, init) => api().fetch(input, init);

// A route's code is transformed on its first import: more than the default 1 s on a busy CI.
configure({ asyncUtilTimeout: 5_000 });

beforeEach(() => {
  resetApi();
});

afterEach(() => {
  cleanup();
  queryClient.clear();
  tokenStore.clear();
  window.localStorage.clear();
  window.sessionStorage.clear();
  document.title = "";
  expect(api().unhandled, "requests the fake API has no handler for").toEqual([]);
});
