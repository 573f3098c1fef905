/** The largest request body the shop's routes read: 16 KiB (docs/contract.md, 413 payload_too_large). */
export const MAX_BODY_BYTES = 16 * 1024;

/**
 * What Next.js buffers of a request body for the proxy (proxy.ts) to clone,
 * instead of its default 10 MB. The only routes behind the proxy that read a
 * body are the lab's, which read at most MAX_BODY_BYTES; pages read none.
 * Past this Next.js drops the rest of the body from the chunk that crosses
 * it, and Node reads a socket at most 64 KiB at a time: with 64 KiB to
 * spare, a route still sees more than its limit of a longer body, and
 * answers 413 rather than parse a cut one.
 */
export const PROXY_BODY_BUFFER_BYTES = MAX_BODY_BYTES + 64 * 1024;
