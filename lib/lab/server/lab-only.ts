import { env } from "@/lib/env";
import { labEnabled, labOff } from "../enabled";

/**
 * A lab route's handler that checks the lab's switch itself, whatever runs
 * in front of it (proxy.ts checks it too): while the lab is off it answers
 * 404 before it reads the request, a session or the provider.
 */
export function labOnly<Args extends unknown[]>(
  handler: (...args: Args) => Promise<Response>,
): (...args: Args) => Promise<Response> {
  return (...args) => (labEnabled(env()) ? handler(...args) : Promise.resolve(labOff()));
}
