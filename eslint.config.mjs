// One flat config for the whole tree: app, lib, scripts, tests, bench, e2e.
// `npm run lint` runs it with --max-warnings=0, so a warning fails like an error.
import pluginQuery from "@tanstack/eslint-plugin-query";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import reactHooks from "eslint-plugin-react-hooks";
import { defineConfig, globalIgnores } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig([
  globalIgnores([
    ".next*/**",
    ".data*/**",
    "bench/.next/**",
    "lib/generated/**",
    "test-results*/**",
    "playwright-report/**",
    "next-env.d.ts",
  ]),
  // Next's rules (React, imports, jsx-a11y, Core Web Vitals) and typescript-eslint's recommended set.
  ...nextVitals,
  ...nextTs,
  // The React Compiler's rules (purity, refs, set-state-in-effect…) on top of the classic two.
  reactHooks.configs.flat["recommended-latest"],
  ...pluginQuery.configs["flat/recommended"],
  {
    files: ["**/*.{ts,tsx,mts}"],
    extends: [tseslint.configs.recommended],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // With verbatimModuleSyntax (tsconfig) a type import must say so, or it is kept at run time.
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-import-type-side-effects": "error",
      "import/no-duplicates": "error",
    },
  },
  {
    // No React here: Vitest's `useTestApp` and Playwright's fixture `use` are not hooks.
    files: ["tests/**", "e2e/**", "bench/**", "scripts/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
]);
