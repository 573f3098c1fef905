import { invalidRequest, ok, unrecognizedUrl, type ApiResponse } from "./responses";
import type { State } from "./state";

/**
 * `/_emulator/*`: the test and demo controls. No API key, because these are
 * not Stripe's API and nothing outside this machine can reach 127.0.0.1.
 */
export function handleControl(method: string, path: string, body: string, state: State, reset: () => void): ApiResponse {
  if (path === "/_emulator/faults" && method === "GET") return ok(state.faults.snapshot());
  if (path === "/_emulator/faults" && method === "POST") {
    let input: unknown;
    try {
      input = body.trim() === "" ? {} : JSON.parse(body);
    } catch {
      return invalidRequest("The request body is not valid JSON.");
    }
    const error = state.faults.apply(input);
    return error ? invalidRequest(error) : ok(state.faults.snapshot());
  }
  if (path === "/_emulator/reset" && method === "POST") {
    reset();
    return ok({ ok: true });
  }
  return unrecognizedUrl(method, path);
}
