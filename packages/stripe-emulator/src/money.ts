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

/**
 * The currencies the emulator charges in, each with Stripe's minimum charge
 * amount in minor units (docs.stripe.com/currencies, "Minimum and maximum
 * charge amounts"). Stripe presents 135 currencies; these are the ones with a
 * documented minimum, and any other is refused rather than charged blindly.
 */
const MINIMUM_MINOR_UNITS: Readonly<Record<string, number>> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
};

export const SUPPORTED_CURRENCIES: readonly string[] = Object.keys(MINIMUM_MINOR_UNITS);

/** The smallest amount Stripe charges in `currency` (lower case), or null when the emulator does not support it. */
export function minimumAmount(currency: string): number | null {
  return Object.hasOwn(MINIMUM_MINOR_UNITS, currency) ? (MINIMUM_MINOR_UNITS[currency] ?? null) : null;
}
