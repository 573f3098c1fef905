// One flat config for the whole tree: app, lib, scripts, tests, bench, e2e.
// `npm run lint` runs it with --max-warnings=0, so a warning fails like an error.
import pluginQuery from "@tanstack/eslint-plugin-query";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import reactHooks from "eslint-plugin-react-hooks";
import { defineConfig, globalIgnores } from "eslint/config";
import { readdirSync } from "node:fs";
import path from "node:path";
import tseslint from "typescript-eslint";

const root = import.meta.dirname;

/**
 * The layers (the README's map), each path named once: moving a folder means
 * editing its line here, and the rules at the end are built from these.
 * eslint-plugin-import's no-restricted-paths (registered by eslint-config-next,
 * with its TypeScript resolver) checks the resolved file, so `@/…` and
 * relative paths are held alike; typescript-eslint's no-restricted-imports
 * checks browser code, because it alone lets `import type` through.
 */
const LAYERS = {
  /** What `next build` ships: pages, routes, the domain, the runtime hooks. */
  production: ["app", "lib", "proxy.ts", "instrumentation.ts", "next.config.ts"],
  /** Demo and measuring tools, run beside the app, never by it (a package in `libraries` is not one). */
  tooling: ["scripts", "tools", "packages"],
  /** Packages the app ships, each reached only through the entry files its package.json exports. */
  libraries: {
    "packages/idempotency": ["src/index.ts", "src/next.ts", "src/front-door.ts", "src/client/index.ts"],
  },
  /** Test code: the suites, their helpers, and the test files beside the code. */
  tests: ["tests", "e2e"],
  testFiles: ["**/*.test.ts", "**/*.test.tsx"],
  /** The reliability lab: demo-only, switched off in production. */
  lab: ["lib/lab", "app/lab", "app/api/lab"],
  /**
   * What the lab may name from tooling, in `import type` only: the Stripe
   * emulator client's types, which the lab's fault switches are typed by. Its
   * one HTTP call to the emulator stays its own, so no tooling code ships.
   */
  labTypesFrom: ["packages/stripe-emulator/src/client.ts"],
  /** The lab's only doors from the rest of the app: its switch, and the observer instrumentation.ts attaches. */
  labEntries: ["lib/lab/enabled.ts", "lib/lab/server/attach.ts"],
  /**
   * Code that runs in the browser: client components (app/ but its pages,
   * layouts and routes), the browser's side of the checkout and of the lab,
   * and the few modules both sides share. It imports only types from server
   * modules (everything else). A `'use client'` file anywhere else is an error.
   */
  browser: ["app", "lib/checkout-client", "lib/lab/browser"],
  serverInApp: ["app/api/**", "app/**/page.tsx", "app/**/layout.tsx", "app/**/route.ts"],
  /** What browser code may import values from, beside its own folder. */
  browserImports: ["app/_components", "lib/checkout-client", "lib/lab/browser"],
  shared: [
    "lib/checkout/answers.ts",
    "lib/money.ts",
    "lib/sleep.ts",
    "lib/lab/lab-event.ts",
    "lib/lab/scenarios.ts",
    "lib/lab/timeline.ts",
    "lib/lab/verdict.ts",
    "lib/lab/fault-patch.ts",
  ],
};

const globsOf = (paths) => paths.flatMap((p) => (/\.[a-z]+$|\*/.test(p) ? [p] : [p, `${p}/**`]));
const withoutExtension = (file) => file.replace(/\.tsx?$/, "");
const escapeGlob = (text) => text.replace(/[[\]{}()*?!+@]/g, "\\$&");
const underRoot = (p) => path.join(root, p);

/** Every folder of app/ is a route segment, except Next's private `_folders`, which any route may share. */
function routeFolders(dir = "app") {
  return readdirSync(underRoot(dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("_"))
    .flatMap((entry) => [path.join(dir, entry.name), ...routeFolders(path.join(dir, entry.name))]);
}

/** A route's files import from app/ only their own folder's files and the private folders. */
const routeZones = ["app", ...routeFolders()].map((folder) => ({
  target: `${escapeGlob(underRoot(folder))}/*`,
  from: [`${escapeGlob(underRoot("app"))}/**`],
  except: [`${escapeGlob(underRoot(folder))}/*`, `${escapeGlob(underRoot("app"))}/**/_*/**`],
  message: "No route imports another route's folder: move the shared code into lib/, where both can import it.",
}));

const toolingMessage = "Production code imports no tooling: move what both need into lib/.";
/** One zone per tooling folder, so that a library under it (LAYERS.libraries) can be let through. */
const toolingZones = LAYERS.tooling.map((folder) => ({
  target: ".",
  from: folder,
  except: Object.keys(LAYERS.libraries)
    .filter((library) => library.startsWith(`${folder}/`))
    .map((library) => `./${path.relative(folder, library)}`),
  message: toolingMessage,
}));
/** A library's insides stay its own: only its exported entry files may be imported. */
const libraryZones = Object.entries(LAYERS.libraries).map(([library, entries]) => ({
  target: ".",
  from: library,
  except: entries.map((entry) => `./${entry}`),
  message: `Reach ${library} only through its package's exports (${entries.join(", ")}): its engine is not the shop's to open.`,
}));
const productionZones = [
  ...toolingZones,
  ...libraryZones,
  { target: ".", from: LAYERS.tests, message: "Production code imports no test code." },
  { target: ".", from: LAYERS.testFiles.map(underRoot), message: "Production code imports no test code." },
  ...routeZones,
];

/** The lab's zones: the production ones, but the tooling zones also let LAYERS.labTypesFrom through. */
const labZones = productionZones.map((zone) =>
  !toolingZones.includes(zone)
    ? zone
    : {
        ...zone,
        except: [
          ...zone.except,
          ...LAYERS.labTypesFrom
            .filter((file) => file.startsWith(`${zone.from}/`))
            .map((file) => `./${path.relative(zone.from, file)}`),
        ],
      },
);

/** What LAYERS.labTypesFrom may give: types, which the build erases. */
const labTypesOnly = {
  regex: `^(${LAYERS.labTypesFrom.map((file) => `@/${withoutExtension(file)}`).join("|")}|@checkout/stripe-emulator(/.*)?)$`,
  allowTypeImports: true,
  message:
    "The lab names the Stripe emulator's client in `import type` only: production code runs no tooling (eslint.config.mjs, LAYERS.labTypesFrom).",
};

const labDoor = {
  target: ".",
  from: LAYERS.lab,
  except: LAYERS.labEntries.map((entry) => `./${path.relative("lib/lab", entry)}`),
  message: `The lab is reached only through ${LAYERS.labEntries.join(" and ")}; the app never calls into it.`,
};

/** Browser code may name a server module only in `import type`, which the build erases. */
const browserSafe = [...LAYERS.browserImports, ...LAYERS.shared.map(withoutExtension)];
const browserFiles = [...globsOf(LAYERS.browser), ...LAYERS.shared];

export default defineConfig([
  globalIgnores([
    ".next*/**",
    ".data*/**",
    "tools/bench/.next/**",
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
    files: ["tests/**", "e2e/**", "tools/bench/**", "scripts/**", "packages/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  // The layers (LAYERS above).
  {
    files: globsOf(LAYERS.production),
    ignores: [...globsOf(LAYERS.lab), ...LAYERS.testFiles],
    rules: { "import/no-restricted-paths": ["error", { basePath: root, zones: [...productionZones, labDoor] }] },
  },
  {
    files: globsOf(LAYERS.lab),
    ignores: LAYERS.testFiles,
    rules: {
      "import/no-restricted-paths": ["error", { basePath: root, zones: labZones }],
      // Browser files of the lab get this pattern from the browser block below, which replaces this one for them.
      "@typescript-eslint/no-restricted-imports": ["error", { patterns: [labTypesOnly] }],
    },
  },
  {
    files: browserFiles,
    ignores: [...LAYERS.serverInApp, ...LAYERS.testFiles],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./",
              message: "Browser code reaches other folders through `@/…`, so the server-module check below sees it.",
            },
            {
              regex: `^@/(?!(${browserSafe.join("|")})(/|$))`,
              allowTypeImports: true,
              message:
                "Browser code imports only types from server modules (`import type`); values it needs live in browser or shared modules (eslint.config.mjs, LAYERS).",
            },
            labTypesOnly,
          ],
        },
      ],
    },
  },
  {
    files: ["**/*.{ts,tsx}"],
    ignores: [...browserFiles, ...LAYERS.serverInApp.map((glob) => `!${glob}`)],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "Program > ExpressionStatement[directive='use client']",
          message:
            "A 'use client' module is browser code: put it where LAYERS.browser (eslint.config.mjs) says browser code lives.",
        },
      ],
    },
  },
]);
