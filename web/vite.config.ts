import { fileURLToPath, URL } from "node:url";

import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

// The API (FastAPI) serves web/dist on the same origin in development and test; `npm run dev`
// proxies /web/* to it so the SPA can also be developed with hot reload.
const apiTarget = process.env.VITE_DEV_API_PROXY ?? "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react()],
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
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
  },
});
