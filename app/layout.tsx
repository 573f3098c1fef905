import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";
import { Providers } from "./providers";

export const metadata: Metadata = {
  title: "Checkout that never charges twice",
  description: "A reference checkout whose payment endpoint is idempotent under retries, crashes and races.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <a href="/" className="brand">Never Twice <span aria-hidden="true">·</span> <small>supply co.</small></a>
        </header>
        <Providers>
          <main className="page">{children}</main>
        </Providers>
      </body>
    </html>
  );
}
