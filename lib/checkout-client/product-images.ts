/**
 * Each product's picture: a small SVG in public/products, committed with the
 * shop and served from its own origin (nothing is fetched from the internet).
 * A product without one (a test's own SKU) shows none.
 */
const IMAGES: Record<string, string> = {
  "tee-classic": "A green crew-neck T-shirt",
  "mug-enamel": "A white enamel camp mug with a blue rim",
  "socks-merino": "A pair of mustard merino socks",
  "cap-canvas": "A brown waxed-canvas cap",
  "tote-bag": "A cream canvas tote bag with black handles",
  "notebook-a5": "A black dot-grid notebook with a red ribbon",
};

export interface ProductImage {
  src: string;
  alt: string;
}

export function productImage(sku: string): ProductImage | null {
  const alt = IMAGES[sku];
  return alt ? { src: `/products/${sku}.svg`, alt } : null;
}
