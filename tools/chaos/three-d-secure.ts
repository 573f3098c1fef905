/**
 * The shopper on the provider's authentication page: fetch the redirect URL,
 * submit the form of the button they chose ("Complete authentication" or
 * "Fail authentication", as on Stripe's test page; "Authorize test payment"
 * or "Fail test payment" on a bank's), and return where the
 * provider redirects them back to (the app's return URL).
 */
export async function authenticate(url: string, choice: "complete" | "fail"): Promise<string> {
  const page = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(10_000) });
  const html = await page.text();
  // The bank's page of a redirect method (iDEAL, Bancontact) says "Authorize test payment".
  const form = findForm(html, choice === "complete" ? /complete|authorize/i : /fail/i);
  if (!form) throw new Error(`no "${choice}" form on the authentication page ${url}`);
  const target = new URL(form.action || url, url);
  const submitted = await fetch(target, {
    method: form.method,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.method === "GET" ? undefined : new URLSearchParams(form.fields).toString(),
    redirect: "manual",
    signal: AbortSignal.timeout(10_000),
  });
  const location = submitted.headers.get("location");
  if (submitted.status < 300 || submitted.status >= 400 || !location) {
    throw new Error(`the authentication page answered ${submitted.status} without a redirect`);
  }
  return new URL(location, target).toString();
}

interface Form {
  action: string;
  method: "GET" | "POST";
  fields: Array<[string, string]>;
}

/** The form whose submit button (or text) matches `label`, with its hidden fields and the button's own name/value. */
export function findForm(html: string, label: RegExp): Form | null {
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const [, attributes = "", inner = ""] = match;
    // Submit buttons: <button> (type submit by default) and <input type="submit">, each with the text it shows.
    const buttons: Array<{ attrs: string; text: string }> = [
      ...[...inner.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)]
        .filter(([, attrs = ""]) => !/type\s*=\s*["']?(button|reset)/i.test(attrs))
        .map(([, attrs = "", text = ""]) => ({ attrs, text: text.replace(/<[^>]*>/g, "") })),
      ...[...inner.matchAll(/<input\b([^>]*)>/gi)]
        .filter(([, attrs = ""]) => /type\s*=\s*["']?submit/i.test(attrs))
        .map(([, attrs = ""]) => ({ attrs, text: attr(attrs, "value") ?? "" })),
    ];
    const chosen = buttons.find((b) => label.test(decode(b.text)));
    const formMatches = chosen !== undefined;
    if (!formMatches) continue;
    const fields: Array<[string, string]> = [];
    for (const [, attrs = ""] of inner.matchAll(/<input\b([^>]*)>/gi)) {
      const name = attr(attrs, "name");
      if (!name || /type\s*=\s*["']?submit/i.test(attrs)) continue;
      fields.push([name, attr(attrs, "value") ?? ""]);
    }
    const name = chosen && attr(chosen.attrs, "name");
    if (chosen && name) fields.push([name, attr(chosen.attrs, "value") ?? ""]);
    return {
      action: decode(attr(attributes, "action") ?? ""),
      method: /method\s*=\s*["']?get/i.test(attributes) ? "GET" : "POST",
      fields,
    };
  }
  return null;
}

function attr(attributes: string, name: string): string | undefined {
  const match = new RegExp(`\\b${name}\\s*=\\s*("([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(attributes);
  return match ? decode(match[2] ?? match[3] ?? match[4] ?? "") : undefined;
}

function decode(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}
