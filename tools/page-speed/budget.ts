/**
 * The checkout's speed budget, measured by Lighthouse on its default mobile
 * profile: a mid-range phone's screen, a 4× slower CPU and a slow 4G network,
 * simulated from observed loads of the page (Lighthouse's "simulate"
 * throttling; ./lighthouse.ts).
 * LCP under 2.5 s at the 75th percentile is Core Web Vitals' "good";
 * checkout pages aim at 1.8 s. The JavaScript budget is what the browser
 * downloads (compressed, every origin: the shop's bundles and Stripe.js) for
 * one page.
 */
export const PAGE_SPEED_BUDGET = {
  lcpMs: 1_800,
  cls: 0.02,
  tbtMs: 150,
  /** Compressed script bytes of `/checkout`, Stripe.js included. */
  checkoutScriptBytes: 250 * 1024,
} as const;

/**
 * What `npm test` holds TBT to: three times the budget. On Chromium 156's
 * headless shell the same build's least TBT of `/checkout` read 54–253 ms
 * over a day's runs: Lighthouse's simulated TBT counts only the tasks after
 * its simulated first paint, which follows the observed one, and a host
 * whose neighbours slow it raises the tasks' CPU time too (the checkout's
 * 340–530 ms). So the 150 ms budget is reported on every run and judged by
 * `npm run bench -- page-speed`, and a page that does markedly more work
 * still fails the suite (300 ms of added hydration read 1,174 ms).
 * Decision 0038.
 */
export const TBT_SUITE_LIMIT_MS = 3 * PAGE_SPEED_BUDGET.tbtMs;

export interface PageSpeed {
  page: string;
  url: string;
  /** Largest Contentful Paint, ms. */
  lcpMs: number;
  /** Cumulative Layout Shift. */
  cls: number;
  /** Total Blocking Time, ms. */
  tbtMs: number;
  /** First Contentful Paint, ms. */
  fcpMs: number;
  /** Compressed bytes of every script the page loaded, and how many. */
  scriptBytes: number;
  scripts: number;
  /** Lighthouse's performance score, 0–100. */
  score: number;
  /** The element whose paint was the largest, as Lighthouse quotes it. */
  lcpElement?: string | null;
  /** The elements that shifted, with each one's share of the CLS. */
  shifted?: string[];
  /** The longest main-thread tasks, with the script each is attributed to. */
  longTasks?: string[];
  /** The host's benchmark index as Lighthouse measured it (a wall-clock loop: lower on a busy host), and the CPU slowdown the figures were simulated with. */
  benchmarkIndex?: number;
  cpuSlowdown?: number;
  /** The main thread's top-level tasks of the load: their wall time and the CPU time they were simulated from, ms. */
  taskWallMs?: number;
  taskCpuMs?: number;
  /** Each load's LCP and TBT, ms, for the record of how far they spread. */
  loads?: Array<{ lcpMs: number; tbtMs: number }>;
}

/** What a page broke of the budget (TBT held to `tbtMs`), one line each; empty when it kept all of it. */
export function overBudget(speed: PageSpeed, scriptBytes?: number, tbtMs: number = PAGE_SPEED_BUDGET.tbtMs): string[] {
  const b = PAGE_SPEED_BUDGET;
  const broken: string[] = [];
  if (speed.lcpMs > b.lcpMs) broken.push(`${speed.page}: LCP ${Math.round(speed.lcpMs)} ms > ${b.lcpMs} ms`);
  if (speed.cls > b.cls) broken.push(`${speed.page}: CLS ${speed.cls.toFixed(3)} > ${b.cls}`);
  if (speed.tbtMs > tbtMs) broken.push(`${speed.page}: TBT ${Math.round(speed.tbtMs)} ms > ${tbtMs} ms`);
  if (scriptBytes !== undefined && speed.scriptBytes > scriptBytes)
    broken.push(`${speed.page}: JavaScript ${kib(speed.scriptBytes)} > ${kib(scriptBytes)}`);
  return broken;
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
