import { jsonError } from "@/lib/http";
import { recordLabEvent } from "@/lib/lab/server/event-log";
import { labOnly } from "@/lib/lab/server/lab-only";
import { labTagOf } from "@/lib/lab/server/lab-trace";
import { currentCustomerId } from "@/lib/session";
import { handleCheckout } from "@/lib/handlers/checkout";
import { handleNaiveCheckout } from "@/lib/lab/server/naive-handler";
import { sleep } from "@/lib/sleep";

/**
 * POST /api/lab/lose-response?lane=naive|idempotent — DEMO ONLY, a lossy
 * network in front of a lane's endpoint. The request is served by that
 * endpoint in full (so the card is charged and the outcome recorded), then the
 * connection is cut a few bytes into the answer: the browser never gets to
 * read it, what a phone losing signal mid-response looks like.
 */
export const POST = labOnly(loseResponse);

async function loseResponse(request: Request) {
  const lane = new URL(request.url).searchParams.get("lane");
  const tag = labTagOf(request.headers);
  if ((lane !== "naive" && lane !== "idempotent") || !tag) {
    return jsonError(400, "invalid_request", "Send ?lane=naive|idempotent and the lab's run headers.");
  }
  const answer = await (lane === "naive" ? handleNaiveCheckout : handleCheckout)(request);
  const firstBytes = (await answer.text()).slice(0, 8);
  recordLabEvent({ type: "dropped" }, { ...tag, lane, customerId: await currentCustomerId(request) });
  return cutMidAnswer(answer, firstBytes);
}

/**
 * The answer's status, headers and first bytes, then a failing body: Next
 * destroys the socket mid-body (pipe-readable.ts), so the browser's read of it
 * fails. Some bytes must go out first: when a kept-alive connection dies
 * before any answer, Chromium quietly resends the POST (up to once per idle
 * connection), which would turn one lost answer into several charges.
 */
const CUT_AFTER_MS = 50;

function cutMidAnswer(answer: Response, firstBytes: string): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(firstBytes));
    },
    async pull(controller) {
      // Only once the first bytes are on the wire; an AbortError keeps Next from logging a crash.
      await sleep(CUT_AFTER_MS);
      controller.error(new DOMException("The lab cut this answer on purpose", "AbortError"));
    },
  });
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  return new Response(stream, { status: answer.status, headers });
}
