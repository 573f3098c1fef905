import { parseArgs } from "node:util";
import { formatReport, reportJson, runConformance } from "./index";
import { SHOP_PATHS, shopTarget, type ShopEndpoint } from "./shop";

/**
 * npm run conformance -- --target checkout|naive [--url <shop>] [--emulator <url>] [--json]
 * Runs the kit against a running shop (by default the demo's): exit 0 when
 * every check passes, 1 otherwise (a wrong command or an unreachable shop
 * included, in one line saying what to change).
 */
const USAGE = "Usage: npm run conformance -- --target checkout|naive [--url <shop>] [--emulator <url>] [--json]";

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(1);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        target: { type: "string" },
        url: { type: "string", default: "http://localhost:3000" },
        emulator: { type: "string", default: "http://127.0.0.1:12111" },
        json: { type: "boolean", default: false },
      },
      strict: true,
    });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
})();

if (!values.target || !(values.target in SHOP_PATHS))
  fail(`--target must be one of: ${Object.keys(SHOP_PATHS).join(", ")}`);
await reachable(`${values.url}/api/health/live`, "the shop", "start it (npm run demo) or pass --url");
await reachable(`${values.emulator}/_emulator/faults`, "the Stripe emulator", "pass --emulator");
if (values.target === "naive") {
  const lab = await fetch(new URL(SHOP_PATHS.naive, values.url), { method: "POST" });
  if (lab.status === 404)
    fail("The lab's naive route answers 404: run the shop with LAB_NAIVE_ENDPOINT=1 (the demo does).");
}
const report = await runConformance(
  shopTarget(values.target as ShopEndpoint, { url: values.url, emulator: { url: values.emulator } }),
);
console.log(values.json ? reportJson(report) : formatReport(report));
process.exit(report.pass ? 0 : 1);

async function reachable(url: string, what: string, hint: string): Promise<void> {
  const ok = await fetch(url).then(
    (response) => response.ok,
    () => false,
  );
  if (!ok) fail(`Cannot reach ${what} at ${new URL(url).origin}: ${hint}.`);
}
