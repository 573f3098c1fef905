import Image from "next/image";
import { productImage } from "@/lib/checkout-client/product-images";
import { listProducts } from "@/lib/catalogue/products";
import { db } from "@/lib/db";
import { formatMoney } from "@/lib/money";
import { AddToCart } from "./_components/add-to-cart";
import { CartCallout } from "./_components/cart-callout";

// The catalogue is read from the database on every request, never at build time.
export const dynamic = "force-dynamic";

export default async function CataloguePage() {
  const products = await listProducts(db());
  return (
    <section aria-labelledby="catalogue-heading">
      <div className="page-head">
        <h1 id="catalogue-heading">Catalogue</h1>
        <CartCallout />
      </div>
      <ul className="product-grid" aria-label="Products">
        {products.map((p, index) => (
          <li key={p.sku} className="product-card" aria-label={p.name}>
            <ProductPicture sku={p.sku} first={index === 0} />
            <h2>{p.name}</h2>
            <p className="muted">{p.description}</p>
            <p className="price">{formatMoney(p.priceCents, p.currency)}</p>
            <AddToCart sku={p.sku} name={p.name} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Vector pictures are served as they are (`unoptimized`: there is nothing for
 * the image optimizer to resize); the first is fetched early, as it is what a
 * phone shows first, and the rest load as they scroll into view.
 */
function ProductPicture({ sku, first }: { sku: string; first: boolean }) {
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
      loading={first ? "eager" : "lazy"}
    />
  );
}
