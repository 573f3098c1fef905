import { parseArgs } from "node:util";
import { formatReport, reportJson, runConformance } from "./index";
import { SHOP_PATHS, shopTarget, type ShopEndpoint } from "./shop";

/**
 * npm run conformance -- --target checkout|naive [--url <shop>] [--emulator <url>] [--json]
 * Runs the kit against a running shop (by default the demo's): exit 0 when
 * every check passes, 1 otherwise, 2 when the command itself is wrong.
 */
const USAGE = "Usage: npm run conformance -- --target checkout|naive [--url <shop>] [--emulator <url>] [--json]";

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
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
const report = await runConformance(
  shopTarget(values.target as ShopEndpoint, { url: values.url, emulator: { url: values.emulator } }),
);
console.log(values.json ? reportJson(report) : formatReport(report));
process.exit(report.pass ? 0 : 1);
