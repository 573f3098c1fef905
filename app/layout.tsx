import type { Metadata, Viewport } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { env } from "@/lib/env";
import { labEnabled } from "@/lib/lab/enabled";
import type { ReactNode } from "react";
import { CartLink } from "./_components/cart-link";
import { NavLink } from "./_components/nav-link";
import { POLICY_LINKS } from "./_components/policies";
import "./globals.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: { default: "Never Twice supply co.", template: "%s · Never Twice supply co." },
  description: "A reference checkout whose payment endpoint is idempotent under retries, crashes and races.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#1f6f5c" };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: its scripts carry this response's CSP nonce
  // (proxy.ts), and the lab's link follows the running server's configuration.
  await connection();
  const lab = labEnabled(env());
  return (
    <html lang="en">
      <body>
        <a href="#content" className="skip-link">
          Skip to content
        </a>
        <Providers>
          <header className="site-header">
            <Link href="/" className="brand">
              Never Twice <span aria-hidden="true">·</span> <small>supply co.</small>
            </Link>
            <nav aria-label="Main" className="site-nav">
              <NavLink href="/">Shop</NavLink>
              <NavLink href="/orders">Orders</NavLink>
              {lab && <NavLink href="/lab">Lab</NavLink>}
              <CartLink />
            </nav>
          </header>
          <main id="content" className="page" tabIndex={-1}>
            {children}
          </main>
          <footer className="site-footer">
            <nav aria-label="Policies">
              <ul>
                {POLICY_LINKS.map((link) => (
                  <li key={link.href}>
                    <Link href={link.href}>{link.title}</Link>
                  </li>
                ))}
              </ul>
            </nav>
            <p className="muted">Never Twice supply co. is a demonstration shop: nothing is shipped.</p>
          </footer>
        </Providers>
      </body>
    </html>
  );
}
