export const DEFAULT_EMULATOR_PORT = 12111;

export type PortResult = { ok: true; port: number } | { ok: false; message: string };

/** `STRIPE_EMULATOR_PORT`: unset or empty means the default; anything else must be a whole port number. */
export function parseEmulatorPort(raw: string | undefined): PortResult {
  if (raw === undefined || raw.trim() === "") return { ok: true, port: DEFAULT_EMULATOR_PORT };
  const text = raw.trim();
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    return { ok: false, message: `STRIPE_EMULATOR_PORT must be an integer between 0 and 65535, got "${raw}".` };
  }
  return { ok: true, port };
}
