// Node-run tooling (tsx scripts, bench, Playwright's global setup) imports
// server modules marked `import "server-only"`. Outside Next's server bundles
// that package throws by design, so this resolve hook gives those processes
// the empty module React's server condition would: the mark still guards
// every client bundle Next builds. Load with `node --import tsx --import
// ./scripts/lib/allow-server-only.mjs …`, or `register` it (playwright.config.ts).
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "server-only") return { url: "data:text/javascript,", shortCircuit: true };
  return nextResolve(specifier, context);
}

// Imported as a preload: install this file as a hook (hooks run on their own thread).
if (isMainThread) register(import.meta.url);
