import { z } from "zod";

/** The emulator fault switches a lab scenario may set: checked by the server, written by the browser. */
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
});
export type FaultPatch = z.infer<typeof faultPatchSchema>;
