import type { Metadata } from "next";
import { ReturnView } from "./return-view";

export const metadata: Metadata = { title: "Checking your payment" };

/**
 * Where the provider sends the shopper back after 3-D Secure:
 * `/checkout/return?key=…&payment_intent=…&redirect_status=…`. The query
 * string is only a pointer; the shop asks the provider itself.
 */
export default async function ReturnPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? null;
  return <ReturnView attemptKey={first(params.key)} paymentIntent={first(params.payment_intent)} />;
}
