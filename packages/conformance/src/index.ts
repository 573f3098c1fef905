/**
 * The conformance kit: runs the idempotency contract against any HTTP
 * endpoint, given hooks for its subjects, bodies and effect counter, and
 * names each property the endpoint breaks.
 */
export { runConformance } from "./checks";
export { formatReport, reportJson } from "./report";
export type { Check, Report, Target } from "./target";
