import { labOnly } from "@/lib/lab/server/lab-only";
import { handleNaiveCheckout } from "@/lib/lab/server/naive-handler";

export const POST = labOnly(handleNaiveCheckout);
