/**
 * Configuration of the SPA. Labels and links are build-time values from Vite's
 * `import.meta.env`; the API's origin is also a run-time value, from `/config.js`
 * (public/config.js, replaced at deploy time so one build serves any API origin).
 * Every value has a working default, so a plain `npm run build` produces a usable console;
 * see web/README.md for the variables.
 */

declare global {
  interface Window {
    /** Set by /config.js before the app's bundle runs. */
    __CONSOLE_CONFIG__?: { apiBaseUrl?: unknown };
  }
}

function read(name: string, fallback: string): string {
  const raw: unknown = (import.meta.env as Record<string, unknown>)[name];
  return typeof raw === "string" && raw.trim() !== "" ? raw.trim() : fallback;
}

/**
 * The API's base URL without a trailing slash: the run-time value when /config.js gives a
 * string (even "", the SPA's own origin), else the build-time `VITE_API_BASE_URL`, else "".
 */
export function apiBaseUrl(runtime: unknown, buildTime: string): string {
  const chosen = typeof runtime === "string" ? runtime.trim() : buildTime;
  return chosen.replace(/\/+$/, "");
}

export const config = {
  /** The product brand, shown as a label only (SPEC 1). */
  productName: read("VITE_PRODUCT_NAME", "Autostep"),
  /** The company in the footer's copyright line. */
  companyName: read("VITE_COMPANY_NAME", "Autostep, Inc."),
  /** The public repository the sidebar's Documentation link opens. */
  docsUrl: read("VITE_DOCS_URL", "https://github.com/autostep/autostep"),
  termsUrl: read("VITE_TERMS_URL", "https://autostep.dev/terms"),
  privacyUrl: read("VITE_PRIVACY_URL", "https://autostep.dev/privacy"),
  /** Base URL of the API; '' means the SPA's own origin (the API serves web/dist). */
  apiBaseUrl: apiBaseUrl(
    typeof window === "undefined" ? undefined : window.__CONSOLE_CONFIG__?.apiBaseUrl,
    read("VITE_API_BASE_URL", ""),
  ),
} as const;
