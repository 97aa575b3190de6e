/**
 * The client contract suite: src/**\/*.live.ts call a running API through the
 * generated client. tests/fuzz/test_client_contract.py starts the dev stack, signs a fresh
 * account in and runs `vitest run --config vitest.contract.config.ts` with CONTRACT_API_URL,
 * CONTRACT_EMAIL, CONTRACT_PASSWORD and CONTRACT_API_KEY set. `npm test` does not run it.
 */
import { fileURLToPath, URL } from "node:url";

import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) } },
  test: {
    environment: "node",
    include: ["src/**/*.live.ts"],
    testTimeout: 30_000,
    fileParallelism: false,
  },
});
