import { createHash } from "node:crypto";
import { fileURLToPath, URL } from "node:url";

import preact from "@preact/preset-vite";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

// The API (FastAPI) serves web/dist on the same origin in development and test; `npm run dev`
// proxies /web/* to it so the SPA can also be developed with hot reload.
const apiTarget = process.env.VITE_DEV_API_PROXY ?? "http://127.0.0.1:8000";

const classNames = new Map<string, string>();

function shortClassName(name: string, filename: string): string {
  const source = `${filename.replace(/\?.*$/, "")}:${name}`;
  const short = `_${createHash("sha256").update(source).digest("base64url").slice(0, 5)}`;
  const owner = classNames.get(short) ?? source;
  if (owner !== source) throw new Error(`CSS class name clash: ${owner} and ${source}`);
  classNames.set(short, source);
  return short;
}

/**
 * react-router's build marks none of its module-level `createContext`, `forwardRef` and `memo`
 * calls pure and labels components with `X.displayName = "..."` (a property write, which the
 * bundler must keep), so every component it exports (Form, ScrollRestoration, the framework
 * mode's prefetching links...) stayed in the bundle whether imported or not. Marking the calls
 * pure and dropping the labels (React DevTools names only) lets tree-shaking drop what the SPA
 * does not import: ~1.4 KB gzip on every route of bench/bundle/measure.mjs.
 */
function reactRouterTreeShaking(): Plugin {
  return {
    name: "react-router-tree-shaking",
    apply: "build",
    transform: {
      filter: { id: /[\\/]node_modules[\\/]react-router[\\/]dist[\\/].*\.mjs$/ },
      handler(code, id) {
        let changed = 0;
        const out = code
          .replace(/^(var [\w$]+ = )(React\d*\.(?:createContext|forwardRef|memo)\()/gm, (_m, decl: string, call: string) => {
            changed += 1;
            return `${decl}/* @__PURE__ */ ${call}`;
          })
          .replace(/^[\w$]+\.displayName = [^\n]*;$/gm, () => {
            changed += 1;
            return "";
          });
        if (changed === 0 && /\.(createContext|forwardRef)\(/.test(code)) {
          this.warn(`${id}: no call to mark pure; react-router's build changed, see vite.config.ts`);
        }
        return changed ? { code: out, map: null } : null;
      },
    },
  };
}

export default defineConfig(({ command }) => ({
  // Preact renders the app: the preset aliases react and react-dom to preact/compat (the code,
  // react-router and React Query keep importing "react"; its types stay @types/react) and
  // compiles JSX for Preact. ~37 KB gzip less on each route of bench/bundle/measure.mjs.
  plugins: [preact(), reactRouterTreeShaking()],
  css: {
    // Short class names in builds (readable ones in `npm run dev`): ~0.2 KB gzip less on each
    // route of bench/bundle/measure.mjs. base64url keeps them valid CSS identifiers.
    modules: command === "build" ? { generateScopedName: shortClassName } : {},
  },
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
  },
  server: {
    proxy: { "/web": apiTarget },
  },
  build: {
    // bench/bundle/measure.mjs follows the manifest to size what each route loads initially.
    manifest: true,
    target: "es2022",
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            {
              // The libraries every route runs (Preact, react-router, React Query and openapi-fetch)
              // in one chunk of their own: it changes only with package-lock.json, so a deploy of
              // the app's own code leaves it cached. One chunk rather than one per library: each
              // chunk boundary costs import/export glue, ~0.3 KB gzip per route each.
              name: "vendor",
              test: /[\\/]node_modules[\\/](preact|react-router|@tanstack|openapi-fetch)[\\/]/,
            },
            {
              // The app's small helpers that pages share (dates, money, email, the preloaded
              // lazy component, the refetch after a change): in the entry's chunk, not one chunk
              // each, whose import glue cost each route ~0.1 KB gzip apiece.
              name: "index",
              test: /[\\/]src[\\/](lib[\\/](dates|money|email)|components[\\/]preloaded|api[\\/]refetch)\.tsx?$/,
            },
          ],
        },
      },
      onLog(level, log, handler) {
        // react-router reads React 19's `use` and `useOptimistic` off the React namespace and
        // falls back when they are absent, as in React 18; with preact/compat the bundler sees
        // that they are absent and says so.
        if (log.code === "IMPORT_IS_UNDEFINED" && log.id?.includes("/node_modules/react-router/")) return;
        handler(level, log);
      },
    },
  },
  test: {
    projects: [
      // Pure logic: src/**/*.test.ts in Node.
      { extends: true, test: { name: "unit", environment: "node", include: ["src/**/*.test.ts"] } },
      // Whole routes: src/**/*.test.tsx render the app in happy-dom against a fake API
      // (src/test/, docs/contributors/tests.md "Route tests").
      {
        extends: true,
        // The libraries' browser builds, as the app gets (react-router's "node" one is CommonJS,
        // which Vite leaves to Node's require).
        resolve: { conditions: ["module", "browser", "development"] },
        test: {
          name: "routes",
          environment: "happy-dom",
          environmentOptions: { happyDOM: { url: "http://console.test/" } },
          include: ["src/**/*.test.tsx"],
          setupFiles: ["src/test/setup.ts"],
          // One module graph for all route test files: the app's code is loaded once, not once
          // per file (~6 s less); setup.ts empties what the app keeps between renders.
          isolate: false,
          // Through Vite, not Node: react-router and React Query import "react", which must be
          // Preact's compat as in the build, and all of them the one copy of Preact.
          server: { deps: { inline: [/\/node_modules\/(preact|react-router|@tanstack|@testing-library\/preact)\//] } },
        },
      },
    ],
  },
}));
