import type { Metadata } from "next";
import { env } from "@/lib/env";
import { labFaultsEnabled } from "@/lib/lab/server/emulator-faults";
import { LabView } from "./lab-view";
import "./lab.css";

export const metadata: Metadata = { title: "Reliability lab" };

// The lab's switches are the running server's configuration, read per request, never at build time.
export const dynamic = "force-dynamic";

export default function LabPage() {
  const config = env();
  // The lab runs only against the emulator (proxy.ts), so both are set: its API origin and the account's key.
  const stripe = {
    apiOrigin: config.stripeJsUrl ? new URL(config.stripeJsUrl).origin : "",
    publishableKey: config.NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY ?? "",
  };
  return <LabView naiveEnabled={config.LAB_NAIVE_ENDPOINT} faultsEnabled={labFaultsEnabled(config)} stripe={stripe} />;
}
