import { defineConfig } from "prisma/config";

// Only `prisma generate` runs here (see scripts/prisma-generate.mjs); migrations
// are applied by the project's own runner, scripts/db-migrate.ts.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
