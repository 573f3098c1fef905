/** JSON responses in the contract's shape: errors are `{ error, message, ...extra }`. */
export function json(body: unknown, status = 200, headers?: HeadersInit): Response {
  return Response.json(body, { status, headers });
}

export function jsonError(
  status: number,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers?: HeadersInit,
): Response {
  return Response.json({ error, message, ...extra }, { status, headers });
}
