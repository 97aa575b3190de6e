#!/usr/bin/env node
/**
 * Bundle budget of the SPA: the gzip size of the JS and CSS a route loads initially.
 *
 *   npm --prefix web run build && node bench/bundle/measure.mjs
 *
 * Reads Vite's manifest (web/dist/.vite/manifest.json, `build.manifest: true`), takes the
 * entry (index.html) plus each route's lazy chunks, follows their static imports
 * (`imports`, never `dynamicImports`) and sums the gzip size (node:zlib, level 9) of every
 * JS and CSS file once. What a page loads after its first paint (its own dynamic imports: parts
 * below the fold, dialogs, Stripe.js's loader, the registration form's domain lists) is not
 * counted. Exits 1 when a route exceeds the budget, 2 when the build is missing or a lazy
 * route of the entry is not in ROUTES (so a new screen cannot escape the budget).
 * 1 KB = 1000 bytes (as Vite reports sizes).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** Every route's first load, with room under it for the screens to come (docs/contributors/performance.md). */
const BUDGET_KB = 55;

/** Route -> the source modules of its lazy route chunks (see web/src/app/routes.tsx). */
const SHELL = "src/app/shell/Shell.tsx";
const ROUTES = {
  "/": [SHELL, "src/features/account/routes/account.tsx"],
  "/account": [SHELL, "src/features/account/routes/account.tsx"],
  "/users": [SHELL, "src/features/users/routes/users.tsx"],
  "/billing": [SHELL, "src/features/billing/routes/billing.tsx"],
  "/activity": [SHELL, "src/features/activity/routes/activity.tsx"],
  "/access-tokens": [SHELL, "src/features/access-tokens/routes/access-tokens.tsx"],
  "/two-step-sign-in": [SHELL, "src/features/session/routes/two-step-sign-in.tsx"],
  "/sessions": [SHELL, "src/features/sessions/routes/sessions.tsx"],
  "/passkeys": [SHELL, "src/features/passkeys/routes/passkeys.tsx"],
  "/payment": ["src/features/billing/routes/payment.tsx"],
  "/login": ["src/features/session/routes/login.tsx"],
  "/logout": ["src/features/session/routes/logout.tsx"],
  "/registration": ["src/features/session/routes/registration.tsx"],
  "/oauth/sso": ["src/features/session/routes/oauth-sso.tsx"],
  "/oauth/saml-test": ["src/features/session/routes/saml-test.tsx"],
  "/oauth/google/login": ["src/features/session/routes/oauth-provider.tsx"],
  "/oauth/github/login": ["src/features/session/routes/oauth-provider.tsx"],
  "(page not found)": [],
};

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "..", "..", "web", "dist");
const manifestPath = join(dist, ".vite", "manifest.json");
if (!existsSync(manifestPath)) {
  console.error(`No ${manifestPath}: run \`npm --prefix web run build\` first.`);
  process.exit(2);
}
/** @type {Record<string, {file: string, src?: string, isEntry?: boolean, imports?: string[], css?: string[]}>} */
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));

const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
if (!entryKey) {
  console.error("The manifest has no entry chunk.");
  process.exit(2);
}

function keyOfSource(src) {
  const key = Object.keys(manifest).find((k) => k === src || manifest[k].src === src);
  if (!key) {
    console.error(`No chunk for ${src} in the manifest: update ROUTES in ${fileURLToPath(import.meta.url)}.`);
    process.exit(2);
  }
  return key;
}

/** Every JS and CSS file a chunk loads before it runs: itself, its CSS, its static imports. */
function closure(keys) {
  const files = new Set();
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) return;
    if (/\.(m?js|css)$/.test(chunk.file)) files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  keys.forEach(visit);
  return files;
}

// Every lazy route the entry can load is measured here.
const measured = new Set(Object.values(ROUTES).flat());
const unmeasured = (manifest[entryKey].dynamicImports ?? []).filter(
  (key) => !measured.has(key) && !measured.has(manifest[key]?.src),
);
if (unmeasured.length > 0) {
  console.error(
    `Lazy routes of the entry not in ROUTES of ${fileURLToPath(import.meta.url)}: ${unmeasured.join(", ")}`,
  );
  process.exit(2);
}

const gzipCache = new Map();
function gzipBytes(file) {
  if (!gzipCache.has(file)) {
    gzipCache.set(file, gzipSync(readFileSync(join(dist, file)), { level: 9 }).length);
  }
  return gzipCache.get(file);
}

const kb = (bytes) => (bytes / 1000).toFixed(2);
let failed = false;

for (const [route, sources] of Object.entries(ROUTES)) {
  const files = [...closure([entryKey, ...sources.map(keyOfSource)])].sort(
    (a, b) => gzipBytes(b) - gzipBytes(a),
  );
  const total = files.reduce((sum, file) => sum + gzipBytes(file), 0);
  const over = total / 1000 > BUDGET_KB;
  failed ||= over;
  console.log(`${route}  ${kb(total)} KB gzip (budget ${BUDGET_KB} KB)${over ? "  OVER BUDGET" : ""}`);
  for (const file of files) console.log(`  ${kb(gzipBytes(file)).padStart(7)} KB  ${file}`);
  console.log("");
}

process.exit(failed ? 1 : 0);
