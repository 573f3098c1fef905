/** JSON requests to the app's own API; errors keep the contract's `{ error, message }`. */
export class ApiError extends Error {
  override name = "ApiError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function requestJson<T>(url: string, init: RequestInit = {}, send: typeof fetch = fetch): Promise<T> {
  const response = await send(url, { credentials: "same-origin", cache: "no-store", ...init });
  const body = (await response.json().catch(() => null)) as { error?: string; message?: string } | null;
  if (!response.ok) {
    throw new ApiError(response.status, body?.error ?? "http_error", body?.message ?? `HTTP ${response.status}`);
  }
  return body as T;
}
