"use client";

import Image from "next/image";
import { productImage } from "@/lib/checkout-client/product-images";

/**
 * next/image writes `style="color:transparent"` on every picture (to hide the
 * alt text while it loads), which the pages' CSP refuses: style-src has no
 * 'unsafe-inline'. An undefined colour writes no style attribute; the
 * stylesheet hides the alt text instead (`.product-image`, `.cart-thumb`).
 * A client component, so the object reaches next/image as it is (a server
 * component's props lose their undefined keys on the way to the browser).
 */
const NO_INLINE_STYLE = { color: undefined };

/**
 * A product's picture. Vector pictures are served as they are (`unoptimized`:
 * there is nothing for the image optimizer to resize). All load at once (six
 * files of under 1 KB: a lazy one that is on screen would paint late);
 * `first`, the catalogue's first, is preloaded with the page.
 */
export function ProductPicture({ sku, first = false }: { sku: string; first?: boolean }) {
  const image = productImage(sku);
  if (!image) return null;
  return (
    <Image
      className="product-image"
      src={image.src}
      alt={image.alt}
      width={320}
      height={240}
      unoptimized
      preload={first}
      loading="eager"
      style={NO_INLINE_STYLE}
    />
  );
}

/** The product's picture beside its cart line; decorative there (the line names the product). */
export function ProductThumbnail({ sku }: { sku: string }) {
  const image = productImage(sku);
  if (!image) return <span className="cart-thumb" aria-hidden="true" />;
  return (
    <Image className="cart-thumb" src={image.src} alt="" width={64} height={48} unoptimized style={NO_INLINE_STYLE} />
  );
}
