/**
 * The largest delivery the endpoint reads. PaymentIntent and Charge events are
 * a few KiB; this leaves room for large metadata and expanded objects while
 * refusing (413, nothing stored) a body nobody should be sending.
 */
export const MAX_EVENT_BYTES = 512 * 1024;
