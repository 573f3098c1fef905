import { readCheckout, setCheckoutLines } from "@/lib/handlers/checkouts";

/** GET /api/checkouts/{id} — one of the current customer's checkouts, with its attempts; 404 for anyone else's. */
export async function GET(request: Request, ctx: { params: Promise<{ id: string }> }) {
  return readCheckout(request, (await ctx.params).id);
}

/** PUT /api/checkouts/{id} `{ items }` — new lines, while no payment of the checkout is live (else 409). */
export async function PUT(request: Request, ctx: { params: Promise<{ id: string }> }) {
  return setCheckoutLines(request, (await ctx.params).id);
}
