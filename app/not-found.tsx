import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return (
    <section aria-labelledby="not-found-heading">
      <h1 id="not-found-heading">Nothing here</h1>
      <p>This page does not exist, or is not yours to see.</p>
      <p>
        <Link href="/">Back to the shop</Link>
      </p>
    </section>
  );
}
