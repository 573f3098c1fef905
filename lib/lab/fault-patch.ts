import type { FaultPatch } from "@checkout/stripe-emulator/client";
import { z } from "zod";

/** The emulator's fault switches a lab scenario may set: three of the emulator's own, with the lab's bounds. */
export type LabFaultPatch = Pick<FaultPatch, "latencyMs" | "failNext" | "dropAfterCharge">;

/** A LabFaultPatch as the server checks it before the emulator sees it; the browser writes one. */
export const faultPatchSchema = z.strictObject({
  latencyMs: z.number().int().min(0).max(30_000).optional(),
  failNext: z
    .strictObject({
      status: z.union([z.literal(500), z.literal(503), z.literal(429)]),
      times: z.number().int().min(1).max(50),
    })
    .nullable()
    .optional(),
  dropAfterCharge: z.number().int().min(0).max(50).optional(),
}) satisfies z.ZodType<LabFaultPatch>;
