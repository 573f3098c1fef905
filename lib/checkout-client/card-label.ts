/** Stripe's card brand ids (`card.brand`) as a shopper reads them on their card. */
const BRANDS: Record<string, string> = {
  amex: "American Express",
  cartes_bancaires: "Cartes Bancaires",
  diners: "Diners Club",
  discover: "Discover",
  eftpos_au: "eftpos",
  interac: "Interac",
  jcb: "JCB",
  mastercard: "Mastercard",
  unionpay: "UnionPay",
  visa: "Visa",
};

/** "Visa ending in 4242"; null when the shop did not learn the card. */
export function cardLabel(brand: string | null, last4: string | null): string | null {
  if (!brand || !last4) return null;
  return `${BRANDS[brand] ?? "Card"} ending in ${last4}`;
}
