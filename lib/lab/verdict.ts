import type { LabLedgerResponse } from "./lab-event";
import type { LaneTimeline } from "./timeline";

/**
 * A lane's running total, "charges at the gateway / orders the shopper sees",
 * and what it means. Charges come from the gateway's ledger once it has been
 * read for the run, and from the app's payment events until then.
 */
export interface LaneTotals {
  charges: number;
  chargesFrom: "ledger" | "events";
  ordersSeen: number;
  ordersRecorded: number;
  verdict: { tone: "good" | "bad" | "neutral"; text: string };
}

export function laneTotals(
  timeline: LaneTimeline,
  ledger: LabLedgerResponse["lanes"][keyof LabLedgerResponse["lanes"]] | undefined,
): LaneTotals {
  const charges = ledger ? ledger.charges : timeline.charges.length;
  const ordersSeen = timeline.seenOrderId ? 1 : 0;
  return {
    charges,
    chargesFrom: ledger ? "ledger" : "events",
    ordersSeen,
    ordersRecorded: timeline.ordersRecorded,
    verdict: verdictOf(charges, ordersSeen),
  };
}

function verdictOf(charges: number, ordersSeen: number): LaneTotals["verdict"] {
  if (charges === 0) return { tone: "neutral", text: ordersSeen ? "No charge yet" : "Nothing charged" };
  if (ordersSeen === 0) return { tone: "bad", text: `Charged ${times(charges)}, no confirmation on screen yet` };
  if (charges > ordersSeen) return { tone: "bad", text: `Charged ${times(charges)} for one order` };
  return { tone: "good", text: "Charged once for one order" };
}

function times(n: number): string {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}
