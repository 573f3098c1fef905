import { expect } from "vitest";
import type { Harness } from "./harness";
import { cart, waitFor, type CheckoutBody, type Shopper } from "./shopper";

/**
 * Sends a checkout and kills the server with SIGKILL once its one Stripe call
 * (create and confirm) is under way at the emulator, slowed by `latencyMs` so
 * that it is still running. The provider completes the call regardless; the
 * shopper's answer is lost with the process. Returns the dead process's pid.
 */
export async function killDuringPayment(
  h: Harness,
  shopper: Shopper,
  key: string,
  latencyMs: number,
  body: CheckoutBody = cart(),
): Promise<number> {
  await h.emulator.faults({ latencyMs });
  const doomed = shopper.checkout(key, body).then(
    (answer) => ({ answered: answer.status }),
    (error: unknown) => ({ failed: String(error) }),
  );
  await waitFor("the Stripe call to be in flight", async () => (await h.emulator.stats()).delayed >= 1);
  const killedPid = h.app.app.pid;
  await h.app.app.stop("SIGKILL");
  expect(await doomed).toMatchObject({ failed: expect.stringContaining("fetch failed") });
  return killedPid;
}
