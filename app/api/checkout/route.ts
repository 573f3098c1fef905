import { frontDoorRoute } from "@checkout/idempotency/front-door";
import { MAX_BODY_BYTES } from "@/lib/body-limit";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { handleCheckout } from "@/lib/handlers/checkout";
import { apiHeadersFor } from "@/lib/security/headers";
import { inServerSpan } from "@/lib/tracing/spans";

// A duplicate of an attempt this process runs skips Next.js (instrumentation.ts installs the door).
const PATH = "/api/checkout";
frontDoorRoute({
  path: PATH,
  endpoint: CHECKOUT_ENDPOINT,
  handler: inServerSpan(PATH, handleCheckout),
  maxBodyBytes: MAX_BODY_BYTES,
  responseHeaders: apiHeadersFor,
});

export { handleCheckout as POST };
