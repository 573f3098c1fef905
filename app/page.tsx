import { listProducts } from "@/lib/catalogue/products";
import { db } from "@/lib/db";
import { formatMoney } from "@/lib/money";
import { AddToCart } from "./_components/add-to-cart";
import { CartCallout } from "./_components/cart-callout";
import { ProductPicture } from "./_components/product-picture";

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
