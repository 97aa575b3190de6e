// @ts-check
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Every folder of src/features is a feature: a new one is bound by the rules below at once. */
const FEATURES = readdirSync(new URL("src/features/", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** Stripe.js loads card fields from Stripe's servers: only the billing feature may use it. */
const STRIPE_ONLY_IN_BILLING = {
  group: ["@stripe/*"],
  message: "Stripe.js belongs to the billing feature (src/features/billing).",
};

/**
 * `@/<folder>` and `@/<folder>/**`, plus relative imports reaching `<folder>`.
 * @param {string} folder
 */
const importsOf = (folder) => [`@/${folder}`, `@/${folder}/**`, `**/${folder}`, `**/${folder}/**`];

/** src/components/Link.tsx's links instead of react-router's (the first-load budget). */
const OWN_LINKS = {
  name: "react-router",
  importNames: ["Link", "NavLink"],
  message: "Use Link and NavLink of @/components/Link (react-router's carry ~2.7 KB gzip we do not use).",
};

const NO_FEATURES_OR_APP = {
  group: [...importsOf("features"), ...importsOf("app")],
  message: "Shared code must not import features or the app layer.",
};

/**
 * One-way imports (bulletproof-react): app -> features -> shared code, and within the shared
 * code components -> api -> lib. A feature never imports another feature; shared code imports
 * no feature; lib imports none of the rest (only the generated contract's types, which import
 * nothing). `import-x/no-cycle` below catches a loop these folder rules let through.
 */
const layers = [
  ...FEATURES.map((feature) => ({
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    patterns: [
      {
        group: FEATURES.filter((f) => f !== feature).flatMap((f) => importsOf(`features/${f}`)),
        message: "Features never import each other: move shared code to src/components or src/lib.",
      },
      { group: importsOf("app"), message: "Features must not import the app layer." },
      ...(feature === "billing" ? [] : [STRIPE_ONLY_IN_BILLING]),
    ],
  })),
  {
    files: ["src/components/**/*.{ts,tsx}"],
    patterns: [NO_FEATURES_OR_APP, STRIPE_ONLY_IN_BILLING],
  },
  {
    files: ["src/api/**/*.{ts,tsx}"],
    patterns: [
      NO_FEATURES_OR_APP,
      STRIPE_ONLY_IN_BILLING,
      { group: importsOf("components"), message: "The API client sits below the components." },
    ],
  },
  {
    files: ["src/lib/**/*.{ts,tsx}"],
    patterns: [
      NO_FEATURES_OR_APP,
      STRIPE_ONLY_IN_BILLING,
      {
        // Any of src/api but the generated contract, schema.d.ts (types only, imports nothing).
        regex: String.raw`^(@|\.\.?(/\.\.)*)/api(/(?!schema$).*)?$`,
        message: "lib is the bottom layer: the API client builds on it, not it on the client.",
      },
      { group: importsOf("components"), message: "lib is the bottom layer: components build on it." },
    ],
  },
  {
    files: ["src/*.{ts,tsx}", "src/app/**/*.{ts,tsx}"],
    patterns: [STRIPE_ONLY_IN_BILLING],
  },
].map(({ files, patterns }) => ({
  files,
  rules: { "no-restricted-imports": ["error", { paths: [OWN_LINKS], patterns }] },
}));

export default tseslint.config(
  { ignores: ["dist", "node_modules", "src/api/schema.d.ts"] },
  {
    files: ["**/*.{ts,tsx}"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      ecmaVersion: 2022,
      globals: globals.browser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { "react-hooks": reactHooks, "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".tsx", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/external-module-folders": ["node_modules", "node_modules/@types"],
      "import-x/resolver-next": [
        createNodeResolver({
          extensions: [".ts", ".tsx", ".d.ts", ".js"],
          // The `@/` alias of tsconfig.app.json; an absolute path, or the aliased imports resolve
          // to relative paths that no-cycle cannot follow.
          tsconfig: { configFile: fileURLToPath(new URL("tsconfig.app.json", import.meta.url)) },
        }),
      ],
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/only-throw-error": "off",
      // No module may reach itself through its imports (eslint-plugin-import-x, the fork of
      // eslint-plugin-import that supports ESLint 10): a loop makes the load order decide
      // which module sees the other half-initialised.
      "import-x/no-cycle": "error",
    },
  },
  ...layers,
  {
    files: ["*.config.{js,ts}", "scripts/**/*.{js,mjs}"],
    languageOptions: { globals: globals.node },
  },
);
