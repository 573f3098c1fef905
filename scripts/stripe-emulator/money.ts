/** Minor units as a shopper reads them ("€19.99", "¥500"), the way Stripe's messages and pages show amounts. */
export function formatAmount(minorUnits: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase() });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(minorUnits / 10 ** digits);
  } catch {
    return `${minorUnits} ${currency.toUpperCase()} (minor units)`;
  }
}
