import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "@playwright/test";
import lighthouse from "lighthouse";
import { throttling } from "lighthouse/core/config/constants.js";
import { findBrowser, realBrowserProbes } from "@/scripts/lib/browser";
import { cpuSlowdownFor, MOBILE_CPU_SLOWDOWN, type PageSpeed } from "./budget";

/**
 * A Chromium for Lighthouse: the one the end-to-end tests use
 * (scripts/lib/browser.ts), with a DevTools port Lighthouse connects to. Its
 * one profile is the one Lighthouse's tab opens in, so a cart or a session
 * cookie set here (`prepare`) is the page's, as a returning shopper's would be.
 */
export interface SpeedBrowser {
  context: BrowserContext;
  measure(page: string, url: string): Promise<PageSpeed>;
  close(): Promise<void>;
}

export async function launchSpeedBrowser(): Promise<SpeedBrowser> {
  const port = await freePort();
  const profile = await mkdtemp(path.join(os.tmpdir(), "page-speed-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: findBrowser(realBrowserProbes())?.executablePath,
    headless: true,
    args: [`--remote-debugging-port=${port}`, "--disable-background-networking", "--no-first-run"],
  });
  return {
    context,
    // Lighthouse's figures vary from one load to the next (LCP by a second at times): its docs advise
    // the median of several runs. Three, each metric's median; the bytes and the elements are the first's.
    async measure(page, url) {
      const runs: PageSpeed[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await measureOnce(page, url));
      const median = (pick: (s: PageSpeed) => number) => runs.map(pick).sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
      return {
        ...runs[0]!,
        lcpMs: median((s) => s.lcpMs),
        cls: median((s) => s.cls),
        tbtMs: median((s) => s.tbtMs),
        fcpMs: median((s) => s.fcpMs),
        score: median((s) => s.score),
      };
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };

  async function measureOnce(page: string, url: string): Promise<PageSpeed> {
    // A first visit's downloads: the HTTP cache goes, the cart and the cookies stay.
    const blank = await context.newPage();
    await (await context.newCDPSession(blank)).send("Network.clearBrowserCache");
    await blank.close();
    const run = async (cpuSlowdownMultiplier?: number) => {
      const result = await lighthouse(
        url,
        {
          port,
          logLevel: "error",
          output: "json",
          onlyCategories: ["performance"],
          // The profile's cart and cookies are the point: Lighthouse must not clear them (nor, then, the cache).
          disableStorageReset: true,
        },
        cpuSlowdownMultiplier === undefined
          ? undefined
          : {
              extends: "lighthouse:default",
              settings: { throttling: { ...throttling.mobileSlow4G, cpuSlowdownMultiplier } },
            },
      );
      if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
      if (result.lhr.runtimeError)
        throw new Error(`Lighthouse could not load ${url}: ${result.lhr.runtimeError.message}`);
      return result.lhr;
    };
    // The mobile profile's 4× CPU slowdown assumes a desktop-class host. On a slower or busier one
    // (its benchmark index lower), the same page again with the slowdown that host needs to
    // emulate the same phone, as Lighthouse's own calibration advises.
    let lhr = await run();
    const cpuSlowdown = cpuSlowdownFor(lhr.environment.benchmarkIndex);
    if (cpuSlowdown < MOBILE_CPU_SLOWDOWN) {
      await (await context.newCDPSession(await context.newPage())).send("Network.clearBrowserCache");
      lhr = await run(cpuSlowdown);
    }
    const numeric = (id: string) => {
      const value = lhr.audits[id]?.numericValue;
      if (value === undefined) throw new Error(`Lighthouse measured no ${id} for ${url}`);
      return value;
    };
    const requests = (lhr.audits["network-requests"]?.details as { items?: NetworkRequest[] } | undefined)?.items;
    const scripts = (requests ?? []).filter((r) => r.resourceType === "Script");
    return {
      page,
      url,
      lcpMs: numeric("largest-contentful-paint"),
      cls: numeric("cumulative-layout-shift"),
      tbtMs: numeric("total-blocking-time"),
      fcpMs: numeric("first-contentful-paint"),
      scriptBytes: scripts.reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
      scripts: scripts.length,
      score: Math.round((lhr.categories.performance?.score ?? 0) * 100),
      lcpElement: lcpElementOf(lhr.audits["largest-contentful-paint-element"]?.details),
      shifted: shiftedOf(lhr.audits["layout-shifts"]?.details),
      longTasks: longTasksOf(lhr.audits["long-tasks"]?.details),
      benchmarkIndex: lhr.environment.benchmarkIndex,
      cpuSlowdown,
    };
  }
}

/** Loads per page, the median of which is its figure. */
const RUNS = 3;

interface NetworkRequest {
  url: string;
  resourceType?: string;
  transferSize?: number;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The LCP element's HTML as Lighthouse quotes it (`<img class="product-image" …>`), for reports. */
function lcpElementOf(details: unknown): string | null {
  const first = (details as { items?: Array<{ items?: Array<{ node?: { snippet?: string } }> }> } | undefined)
    ?.items?.[0]?.items?.[0];
  return first?.node?.snippet ?? null;
}

/** The elements that moved, as Lighthouse quotes them, largest shift first. */
function shiftedOf(details: unknown): string[] {
  const items = (details as { items?: Array<{ node?: { snippet?: string }; score?: number }> } | undefined)?.items;
  return (items ?? []).flatMap((item) => (item.node?.snippet ? [`${item.node.snippet} (${item.score ?? "?"})`] : []));
}

/** The main thread's longest tasks (simulated), with the script each is attributed to. */
function longTasksOf(details: unknown): string[] {
  const items = (details as { items?: Array<{ url?: string; duration?: number }> } | undefined)?.items;
  return (items ?? []).slice(0, 5).map((task) => `${Math.round(task.duration ?? 0)} ms ${task.url ?? "?"}`);
}
