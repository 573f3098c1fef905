import { configuredShopIdentity } from "@/lib/checkout/intent-ownership";
import { parseEnv } from "@/lib/env";
import { randomUUID } from "node:crypto";
import { runAudit } from "@/lib/audit/audit";
import { storeRun } from "@/lib/audit/store";
import { createPrismaClient } from "@/lib/db";
import { createStripeClient } from "@/lib/payments/stripe-client";
import { TEST_OPS_TOKEN } from "@/tests/app-env";
import { expectNoSeriousA11yViolations } from "./accessibility";
import { expect, test } from "./fixtures";
import { E2E } from "./settings";

// The operator's page: refused without the credential, the audit's findings
// with what to do and a link to the payment, a finding marked handled with a
// note, on a desktop and at a phone's width. Serial: the page shows the
// latest audit run of the database every worker shares, so no other run may
// come between this one's and the page.

test(
  "An operator signs in to /ops, sees the audit's finding and marks it handled",
  { tag: "@serial" },
  async ({ page, workerApp }) => {
    // Refused without the credential: the API asks for the token, the page for a sign-in.
    expect((await page.request.get("/api/ops/findings")).status()).toBe(401);
    const wrong = await page.request.get("/api/ops/findings", { headers: { authorization: "Bearer nope" } });
    expect(wrong.status()).toBe(401);

    // A charge made behind the shop's back, and the audit that finds it, stored as the scheduled one stores it.
    const stripe = createStripeClient({ secretKey: workerApp.apiKey, apiBase: E2E.emulatorUrl, maxNetworkRetries: 0 });
    const from = new Date(Date.now() - 2_000);
    // The worker's shop, as its server reads its variables: the intent below names it without its MAC.
    const identity = configuredShopIdentity(parseEnv({ ...process.env, ...workerApp.env }));
    const behind = await stripe.paymentIntents.create({
      amount: 4_200,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      allowed_payment_method_types: ["card"],
      metadata: {
        shop: identity.shopId,
        orderId: randomUUID(),
        customerId: randomUUID(),
        idempotencyKey: randomUUID(),
      },
    });
    const prisma = createPrismaClient(workerApp.env.DATABASE_URL!);
    try {
      const report = await runAudit(
        { prisma, stripe, identity, attemptDeadlineMs: 1_800_000, actionTimeoutMs: 1_800_000 },
        { from, to: new Date(Date.now() + 1_000) },
      );
      expect(report.findings.map((f) => f.key)).toContain(`charge_without_order:${behind.id}`);
      await storeRun(prisma, report, from);
    } finally {
      await prisma.$disconnect();
    }

    await page.goto("/ops");
    await expect(page.getByRole("heading", { name: "Operations", level: 1 })).toBeVisible();
    await expect(page.getByText(behind.id)).toHaveCount(0);
    await page.getByLabel("Your name").fill("Robin");
    await page.getByLabel("Operator token (OPS_TOKEN)").fill("not-the-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    const refusal = page.getByRole("alert").filter({ hasText: "not this shop's OPS_TOKEN" });
    await expect(refusal).toBeVisible();
    // Styled as the error it is (the shop's danger colours), not as news.
    await expect(refusal).toHaveCSS("background-color", "rgb(251, 236, 234)");
    await expect(refusal).toHaveCSS("color", "rgb(162, 59, 42)");
    await expectNoSeriousA11yViolations(page, "the operator's sign-in, refused");

    await page.getByLabel("Your name").fill("Robin");
    await page.getByLabel("Operator token (OPS_TOKEN)").fill(TEST_OPS_TOKEN);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByText("Signed in as Robin.")).toBeVisible();
    const finding = page
      .getByRole("listitem")
      .filter({ hasText: behind.id })
      .filter({ hasText: "charge_without_order" });
    await expect(finding).toBeVisible();
    await expect(finding).toContainText("42.00 USD");
    await expect(finding).toContainText("What to do:");
    await expect(finding.getByRole("link", { name: /in Stripe's Dashboard/ })).toHaveAttribute(
      "href",
      `https://dashboard.stripe.com/test/payments/${behind.id}`,
    );
    await expectNoSeriousA11yViolations(page, "the operator's page");

    // The shopper's session is not the operator's: the API still wants the token, which it takes.
    expect((await page.request.get("/api/ops/findings")).status()).toBe(401);
    const api = await page.request.get("/api/ops/findings", { headers: { authorization: `Bearer ${TEST_OPS_TOKEN}` } });
    expect(api.status()).toBe(200);
    const body = (await api.json()) as { findings: Array<{ finding: { key: string } }> };
    expect(body.findings.map((f) => f.finding.key)).toContain(`charge_without_order:${behind.id}`);

    await finding.getByLabel("What you did").fill("Refunded in the Dashboard");
    await finding.getByRole("button", { name: "Mark handled" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Marked handled." })).toBeVisible();
    await expect(page.getByRole("listitem").filter({ hasText: behind.id })).toContainText(
      /Handled by Robin at .+: Refunded in the Dashboard/,
    );

    // At a phone's width: nothing wider than the screen, and still no serious violation.
    await page.setViewportSize({ width: 360, height: 740 });
    await expect(page.getByRole("heading", { name: "Operations", level: 1 })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    // The audit table fits too: nothing of it hidden off to the side of its box.
    const table = page.getByRole("region", { name: "Audit runs, scrollable" });
    await expect(table).toBeVisible();
    const overflow = await table.evaluate((box) => box.scrollWidth - box.clientWidth);
    expect(overflow, "the audit table's hidden width").toBeLessThanOrEqual(0);
    await expectNoSeriousA11yViolations(page, "the operator's page at 360 px");

    // Signing out ends the operator's session on this browser.
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Signed out." })).toBeVisible();
    await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
    await page.goto("/ops");
    await expect(page.getByLabel("Operator token (OPS_TOKEN)")).toBeVisible();
    await expect(page.getByText("Signed in as Robin.")).toHaveCount(0);
  },
);
