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
  return <LabView naiveEnabled={config.LAB_NAIVE_ENDPOINT} faultsEnabled={labFaultsEnabled(config)} />;
}
