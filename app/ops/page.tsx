import type { Metadata } from "next";
import { cookies, headers } from "next/headers";
import { notFound } from "next/navigation";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { operatorCookie, operatorOf } from "@/lib/ops/credential";
import { opsOverview } from "@/lib/ops/overview";
import { OpsDashboard } from "./ops-dashboard";
import type { Notice } from "./ops-notice";
import { SignIn } from "./sign-in";

export const metadata: Metadata = { title: "Operations", robots: { index: false, follow: false } };

/** What a form post came back with: a refusal is shown as an error, the rest as news. */
const NOTICES: Record<string, Notice> = {
  signin_failed: { text: "That token is not this shop's OPS_TOKEN, or the name is empty.", error: true },
  signin_throttled: { text: "Too many sign-ins from this address: wait a minute and try again.", error: true },
  note_missing: { text: "Write a note saying what you did.", error: true },
  handled: { text: "Marked handled.", error: false },
  already_handled: { text: "Someone marked it handled already.", error: false },
  signed_out: { text: "Signed out.", error: false },
};

/** /ops: the operator's page (docs/operations.md, The audit), behind OPS_TOKEN; 404 without it. */
export default async function OpsPage({ searchParams }: { searchParams: Promise<{ notice?: string }> }) {
  const { OPS_TOKEN: token, PAYMENT_ATTEMPT_DEADLINE_MS } = env();
  if (!token) notFound();
  const { notice } = await searchParams;
  const message = notice && Object.hasOwn(NOTICES, notice) ? NOTICES[notice] : undefined;
  const operator = await operatorOf((await cookies()).get(operatorCookie(await headers()).name)?.value, token);
  if (!operator) return <SignIn notice={message} />;
  const overview = await opsOverview(db(), { attemptDeadlineMs: PAYMENT_ATTEMPT_DEADLINE_MS });
  return <OpsDashboard operator={operator.name} overview={overview} notice={message} />;
}
