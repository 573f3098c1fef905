import "server-only";
import type Stripe from "stripe";
import type { PrismaClient } from "./generated/prisma/client";

export interface Health {
  ok: boolean;
  db: boolean;
  payments: boolean;
}

/** Both dependencies are probed in parallel; a slow one cannot hang the check. */
export async function checkHealth(prisma: PrismaClient, stripe: Stripe): Promise<Health> {
  const [dbOk, paymentsOk] = await Promise.all([
    withTimeout(prisma.$queryRaw`select 1`, 2_000),
    withTimeout(stripe.paymentIntents.list({ limit: 1 }), 2_500),
  ]);
  return { ok: dbOk && paymentsOk, db: dbOk, payments: paymentsOk };
}

async function withTimeout(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
