import { sleep } from "@/lib/sleep";

/** Polls `check` every 100 ms until it is true or `ms` passed; returns whether it became true. */
export async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}
