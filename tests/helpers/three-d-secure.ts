/**
 * The shopper on the emulator's hosted 3-D Secure page: presses Complete or
 * Fail authentication (the same form posts a browser would make) and returns
 * where the provider sends them back, with its query parameters.
 */
export async function authenticate(pageUrl: string, action: "complete" | "fail"): Promise<URL> {
  const page = await fetch(pageUrl);
  if (page.status !== 200) throw new Error(`the authentication page answered ${page.status}`);
  const html = await page.text();
  const secret = /name="client_secret" value="([^"]+)"/.exec(html)?.[1];
  if (!secret) throw new Error("the authentication page has no form");
  const target = new URL(pageUrl);
  const pressed = await fetch(new URL(target.pathname, target), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_secret: secret.replace(/&amp;/g, "&"), action }).toString(),
    redirect: "manual",
  });
  const location = pressed.headers.get("location");
  if (pressed.status !== 303 || !location) throw new Error(`pressing ${action} answered ${pressed.status}`);
  return new URL(location);
}
