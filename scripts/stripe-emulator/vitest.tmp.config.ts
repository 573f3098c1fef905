import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL("../../", import.meta.url)) } },
  test: { include: ["scripts/stripe-emulator/**/*.test.ts"], pool: "forks", testTimeout: 60_000 },
});
