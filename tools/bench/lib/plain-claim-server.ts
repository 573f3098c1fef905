import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { CHECKOUT_ENDPOINT } from "@/lib/checkout/request";
import { admissionGate, type Admission } from "@/lib/abuse/admission";
import { fingerprint } from "@checkout/idempotency";
import { openDb } from "./database";

/**
 * The duplicates scenario's baseline, run as a process of its own so that it
 * has a core as the app has: plain node:http answering a duplicate of the held
 * attempt with the engine's own claim (the app's Prisma client and pool size,
 * the same statement on the same row), and nothing else — no framework, no
 * session, no proxy. Reads DATABASE_URL, takes the subject as its argument;
 * prints its port.
 */
const db = openDb(process.env.DATABASE_URL!);
const subjectId = process.argv[2]!;
/**
 * Limits as the shop's gate hands them to the claim, so the statement is the
 * shop's own (the claim with admission); a known key is never limited by them.
 */
const admission: Admission = {
  address: "127.0.0.1",
  perAddress: 1000,
  perSession: 1000,
  maxOpenAttempts: 5,
  windowSeconds: 60,
  declinesPerSession: 5,
  declinesPerAddress: 20,
  declinesPerCard: 5,
  declineWindowSeconds: 3600,
  card: null,
  admit: true,
};

const server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const key = String(request.headers["idempotency-key"] ?? "");
  const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const scope = { subjectId, endpoint: CHECKOUT_ENDPOINT, key };
  const claim = await db.engine.claim(scope, fingerprint(body), admissionGate(scope, admission));
  if (claim.kind !== "in_progress") {
    response.writeHead(500).end(claim.kind);
    return;
  }
  const retryAfter = String(claim.retryAfterSeconds);
  response.writeHead(409, { "content-type": "application/json", "retry-after": retryAfter });
  response.end(JSON.stringify({ error: "in_progress", retryAfterSeconds: claim.retryAfterSeconds }));
});
server.listen(0, "127.0.0.1", () => console.log(`port ${(server.address() as AddressInfo).port}`));
process.on("SIGTERM", () => {
  server.close();
  void db.close().finally(() => process.exit(0));
});
