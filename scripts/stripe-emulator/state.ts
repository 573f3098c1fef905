import { Faults } from "./faults";
import { IdempotencyStore } from "./idempotency";
import { Ledger } from "./ledger";

/**
 * Everything `POST /_emulator/reset` forgets. A reset swaps in a fresh State
 * rather than clearing the old one in place: a request still sleeping in
 * injected latency keeps its own State and finishes there, so it cannot leak a
 * charge into the next test.
 */
export interface State {
  ledger: Ledger;
  idempotency: IdempotencyStore;
  faults: Faults;
}

export function freshState(): State {
  return { ledger: new Ledger(), idempotency: new IdempotencyStore(), faults: new Faults() };
}
