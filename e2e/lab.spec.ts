import type { Page } from "@playwright/test";
import type { PaymentIntent } from "@checkout/stripe-emulator/client";
import { expect, test } from "./fixtures";

/**
 * The reliability lab (/lab): each scenario runs in both lanes at once, and
 * the numbers on screen must be the gateway's own — the emulator's ledger,
 * counted here per lane (the naive endpoint tags its PaymentIntents
 * `lane: naive`; the real endpoint's carry only the attempt's key).
 */
type LaneName = "Naive checkout" | "Idempotent checkout";

const lane = (page: Page, name: LaneName) => page.getByRole("region", { name });
const charges = (page: Page, name: LaneName) => lane(page, name).getByLabel("Charges at the gateway", { exact: true });
const ordersSeen = (page: Page, name: LaneName) =>
  lane(page, name).getByLabel("Orders the shopper sees", { exact: true });
const requestLog = (page: Page, name: LaneName) => lane(page, name).getByRole("table");

async function run(page: Page, scenario: string): Promise<void> {
  await page.getByRole("button", { name: scenario, exact: true }).click();
  await expect(page.getByText(`“${scenario}” finished`)).toBeVisible({ timeout: 45_000 });
  await expect(page.getByText("The run stopped early")).toHaveCount(0);
}

function ledgerByLane(intents: PaymentIntent[]) {
  const succeeded = intents.filter((i) => i.status === "succeeded");
  return {
    naive: succeeded.filter((i) => i.metadata.lane === "naive"),
    idempotent: succeeded.filter((i) => i.metadata.lane === undefined),
  };
}

/**
 * The verdict both scenarios must reach, on the gateway's ledger and on screen
 * alike: the naive lane charged twice, the idempotent lane once, and each
 * shopper saw one order. Returns the ledger for the scenario's own checks.
 */
async function expectChargedTwiceAndOnce(page: Page, shopper: { paymentIntents(): Promise<PaymentIntent[]> }) {
  const ledger = ledgerByLane(await shopper.paymentIntents());
  expect(ledger.naive).toHaveLength(2);
  expect(ledger.idempotent).toHaveLength(1);
  await expect(charges(page, "Naive checkout")).toHaveText(String(ledger.naive.length));
  await expect(charges(page, "Idempotent checkout")).toHaveText(String(ledger.idempotent.length));
  await expect(ordersSeen(page, "Naive checkout")).toHaveText("1");
  await expect(ordersSeen(page, "Idempotent checkout")).toHaveText("1");
  return ledger;
}

/**
 * The ConfirmationTokens each lane's requests carried, from the requests the
 * page sent, and how many the page had the emulator make.
 */
function recordTokens(page: Page) {
  const seen = { made: 0, naive: [] as string[], idempotent: [] as string[] };
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (request.method() !== "POST") return;
    if (url.pathname === "/v1/confirmation_tokens") seen.made += 1;
    const lane =
      url.pathname === "/api/checkout"
        ? "idempotent"
        : url.pathname === "/api/lab/naive-checkout"
          ? "naive"
          : url.pathname === "/api/lab/lose-response"
            ? url.searchParams.get("lane")
            : null;
    if (lane !== "naive" && lane !== "idempotent") return;
    const body = JSON.parse(request.postData() ?? "{}") as { confirmationToken?: unknown; paymentMethod?: unknown };
    expect(body.paymentMethod).toBeUndefined();
    seen[lane].push(String(body.confirmationToken));
  });
  return seen;
}

/** One token for every request of the idempotent lane's attempt; a new one per press of the naive lane's. */
function expectTokens(seen: ReturnType<typeof recordTokens>, naivePresses: number) {
  expect(new Set(seen.idempotent).size).toBe(1);
  expect(seen.idempotent.length).toBeGreaterThan(1);
  expect(seen.naive).toHaveLength(naivePresses);
  expect(new Set(seen.naive).size).toBe(naivePresses);
  for (const token of [...seen.idempotent, ...seen.naive]) expect(token).toMatch(/^ctoken_/);
  expect(seen.made).toBe(1 + naivePresses);
}

async function openLogs(page: Page): Promise<void> {
  for (const name of ["Naive checkout", "Idempotent checkout"] as const) {
    await lane(page, name)
      .getByText(/^Request log/)
      .click();
  }
}

test("A double click in the lab charges the naive lane twice and the idempotent lane once", async ({
  page,
  shopper,
  emulator,
}) => {
  const tokens = recordTokens(page);
  await page.goto("/lab");
  await expect(page.getByRole("heading", { name: "Reliability lab", level: 1 })).toBeVisible();
  await run(page, "Double click");

  const ledger = await expectChargedTwiceAndOnce(page, shopper);
  expectTokens(tokens, 2);
  await expect(lane(page, "Naive checkout")).toContainText("Charged twice for one order");
  await expect(lane(page, "Idempotent checkout")).toContainText("Charged once for one order");

  // The gateway really was slow, so the second press met the first one still charging.
  expect((await emulator.stats()).delayed).toBeGreaterThan(0);
  await openLogs(page);
  await expect(requestLog(page, "Naive checkout").getByRole("row", { name: /^Press \d/ })).toHaveCount(2);
  await expect(requestLog(page, "Naive checkout")).not.toContainText("409");
  await expect(requestLog(page, "Idempotent checkout")).toContainText("409 in progress · Retry-After 1 s");
  await expect(requestLog(page, "Idempotent checkout")).toContainText("201 replay");
  const idempotentIntent = ledger.idempotent[0]!;
  await expect(lane(page, "Idempotent checkout")).toContainText(idempotentIntent.id);
});

test("A lost response in the lab is charged again by the naive lane and replayed by the idempotent one", async ({
  page,
  shopper,
}) => {
  const cut: string[] = [];
  page.on("requestfailed", (request) => {
    if (new URL(request.url()).pathname === "/api/lab/lose-response")
      cut.push(request.failure()?.errorText ?? "failed");
  });
  const tokens = recordTokens(page);
  // The event log answers late, as on a loaded machine: every poll the page sends during the run is answered only
  // once the run has ended, so the numbers it settles on must come from a read sent after the last answer.
  const polls = { heldAcrossTheEnd: 0 };
  let runEnded: Promise<void> | null = null;
  let ended = false;
  await page.route("**/api/lab/events?*", async (route) => {
    const response = await route.fetch();
    if (!ended) {
      polls.heldAcrossTheEnd += 1;
      runEnded ??= expect(page.getByText(/Reading the gateway.s ledger/))
        .toBeVisible({ timeout: 45_000 })
        .then(() => void (ended = true));
      await runEnded;
    }
    await route.fulfill({ response });
  });
  await page.goto("/lab");
  await run(page, "Lost response after charge");
  expect(polls.heldAcrossTheEnd).toBeGreaterThan(0);
  expectTokens(tokens, 2);

  // The connection really was cut, once per lane, before the answer could be read.
  expect(cut).toHaveLength(2);
  for (const error of cut) expect(error).toMatch(/^net::ERR_/);
  await expectChargedTwiceAndOnce(page, shopper);

  await openLogs(page);
  for (const name of ["Naive checkout", "Idempotent checkout"] as const) {
    await expect(requestLog(page, name)).toContainText("201 · cut off mid-answer");
  }
  await expect(requestLog(page, "Idempotent checkout")).toContainText("201 replay");
  await expect(lane(page, "Naive checkout")).toContainText("The shop wrote 2 orders; the shopper saw 1.");
});

test("Screenshot: the lab after a double click", async ({ page }) => {
  test.skip(!process.env.SCREENSHOTS, "set SCREENSHOTS=1 to retake the README's screenshots");
  await page.setViewportSize({ width: 1200, height: 1000 });
  await page.goto("/lab");
  // The second run: the picture shows a warm app, not its first requests' start-up.
  await run(page, "Double click");
  await run(page, "Double click");
  await page.mouse.move(0, 0);
  await page.screenshot({ path: "docs/screenshots/lab.png", fullPage: true, animations: "disabled" });
});
