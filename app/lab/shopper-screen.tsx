import type { Lane } from "@/lib/lab/lab-event";
import type { ShopperView } from "@/lib/lab/browser/shoppers";
import type { LabRun } from "@/lib/lab/browser/use-lab-run";

/** What the lane's checkout page is showing the shopper right now. */
export function ShopperScreen({ lane, run }: { lane: Lane; run: LabRun | null }) {
  if (!run) return null;
  const view = run.views[lane];
  return (
    <p className={`lab-shopper lab-shopper-${view?.kind ?? "paying"}`}>
      <span className="lab-shopper-label">Shopper&apos;s screen:</span>{" "}
      {view ? describe(view) : run.phase === "running" ? "Paying…" : "—"}
    </p>
  );
}

function describe(view: ShopperView): string {
  switch (view.kind) {
    case "paid":
      return `“Thank you — your order is paid” (order ${view.orderId.slice(0, 8)})`;
    case "declined":
      return "“Your card was declined”";
    case "error":
      return `“Something went wrong, please try again” (${view.detail})`;
    case "unknown":
      return `“Still processing” (${view.detail})`;
  }
}
