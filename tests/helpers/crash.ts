import { expect } from "vitest";
import type { Harness } from "./harness";
import { cart, waitFor, type Shopper } from "./shopper";

/**
 * Sends a checkout and kills the server with SIGKILL once `inFlight` Stripe
 * writes are under way at the emulator (slowed by `latencyMs` so they are
 * still running): 1 = the PaymentIntent's create, 2 = its confirm, the charge.
 * The shopper's answer is lost with the process. Returns the dead process's pid.
 */
export async function killDuringPayment(
  h: Harness,
  shopper: Shopper,
  key: string,
  inFlight: 1 | 2,
  latencyMs: number,
): Promise<number> {
  await h.emulator.faults({ latencyMs });
  const doomed = shopper.checkout(key, cart()).then(
    (answer) => ({ answered: answer.status }),
    (error: unknown) => ({ failed: String(error) }),
  );
  await waitFor(
    `${inFlight} Stripe call(s) to be in flight`,
    async () => (await h.emulator.stats()).delayed >= inFlight,
  );
  const killedPid = h.app.app.pid;
  await h.app.app.stop("SIGKILL");
  expect(await doomed).toMatchObject({ failed: expect.stringContaining("fetch failed") });
  return killedPid;
}
