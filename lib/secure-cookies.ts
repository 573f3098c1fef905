import "server-only";
import { env } from "./env";
import { servedOverHttps } from "./security/headers";

/**
 * The shop's own cookies over https — the shopper's session and the
 * operator's — are named `__Host-<name>` and Secure: `__Host-` makes the
 * browser take one only with Secure, Path=/ and no Domain, so no sibling
 * subdomain and no plain-http response can set or overwrite it. Over plain
 * http (the demo on http://localhost) each keeps its plain name, without
 * Secure, which any browser sends back there; a cookie under the other name
 * is not read.
 *
 * A request is https always when the deployment is (APP_ORIGIN names only
 * https origins), else when the browser talks https to this server directly,
 * or to a TLS-terminating proxy in front of it (which says so in
 * X-Forwarded-Proto). Trusting the header is safe here: a client that forges
 * it only gets a cookie its own plain-http browser will not send back.
 */
export function secureCookies(headers: Headers, url: URL = PAGE_URL): boolean {
  const origins = env().appOrigins;
  if (origins.length > 0 && origins.every((origin) => origin.startsWith("https://"))) return true;
  return servedOverHttps(url, headers);
}

/**
 * A page has no request URL, only its headers: Next writes the protocol it was
 * served over into X-Forwarded-Proto when no proxy in front did.
 */
const PAGE_URL = new URL("http://page.invalid/");

/** A cookie's name for a request that `secureCookies` judged. */
export function cookieName(name: string, secure: boolean): string {
  return secure ? `__Host-${name}` : name;
}
