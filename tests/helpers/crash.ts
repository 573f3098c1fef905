import { expect } from "vitest";
import type { Harness } from "./harness";
import { cart, type CheckoutBody, type Shopper } from "./shopper";

/**
 * Sends a checkout and kills the server with SIGKILL while its one Stripe
 * call (create and confirm) is held at the emulator's gate, its key claimed:
 * the charge is still running. The gate then opens and the provider
 * completes the call regardless; the shopper's answer is lost with the
 * process. Returns the dead process's pid.
 */
export async function killDuringPayment(
  h: Harness,
  shopper: Shopper,
  key: string,
  body: CheckoutBody = cart(),
): Promise<number> {
  await h.emulator.faults({ gate: true });
  const doomed = shopper.checkout(key, body).then(
    (answer) => ({ answered: answer.status }),
    (error: unknown) => ({ failed: String(error) }),
  );
  await h.emulator.held(1); // the Stripe call is in flight
  const killedPid = h.app.app.pid;
  await h.app.app.stop("SIGKILL");
  expect(await doomed).toMatchObject({ failed: expect.stringContaining("fetch failed") });
  expect(await h.emulator.faults({ gate: false })).toMatchObject({ held: 0, stats: { gated: 1 } });
  return killedPid;
}

/**
 * killDuringPayment for any request whose one Stripe call is held at the
 * emulator's gate (an operator's refund or cancel): the provider completes the call
 * after the process died, and the caller's answer is lost with it.
 */
export async function killDuringRefund(h: Harness, send: () => Promise<unknown>): Promise<number> {
  await h.emulator.faults({ gate: true });
  const doomed = send().then(
    () => ({ answered: true }),
    (error: unknown) => ({ failed: String(error) }),
  );
  await h.emulator.held(1);
  const killedPid = h.app.app.pid;
  await h.app.app.stop("SIGKILL");
  expect(await doomed).toMatchObject({ failed: expect.stringContaining("fetch failed") });
  expect(await h.emulator.faults({ gate: false })).toMatchObject({ held: 0, stats: { gated: 1 } });
  return killedPid;
}
