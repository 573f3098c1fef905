/**
 * The shop's catalogue. Prices live here and in the database, never in the
 * client: checkout prices a cart from the `products` table only. The figures
 * are in the shop's one currency, SHOP_CURRENCY, which the seed writes beside
 * them (docs/decisions/0035).
 */
export const CATALOGUE = [
  {
    sku: "tee-classic",
    name: "Classic Tee",
    description: "Heavyweight organic cotton, relaxed fit.",
    priceCents: 2500,
  },
  {
    sku: "mug-enamel",
    name: "Enamel Mug",
    description: "Camp mug that survives the dishwasher and the trail.",
    priceCents: 1800,
  },
  {
    sku: "socks-merino",
    name: "Merino Socks",
    description: "Warm when wet, never itchy. One pair.",
    priceCents: 1400,
  },
  {
    sku: "cap-canvas",
    name: "Canvas Cap",
    description: "Waxed canvas, brass buckle.",
    priceCents: 2200,
  },
  {
    sku: "tote-bag",
    name: "Market Tote",
    description: "Holds a week of groceries.",
    priceCents: 1600,
  },
  {
    sku: "notebook-a5",
    name: "Dot-grid Notebook",
    description: "A5, 192 pages, lies flat.",
    priceCents: 1200,
  },
] as const;
