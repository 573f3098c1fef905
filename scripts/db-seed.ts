// npm run db:seed — upserts the catalogue in SHOP_CURRENCY (safe to run any number of times).
import "./lib/dotenv";
import { seedCatalogue } from "@/lib/catalogue/seed";
import { createPrismaClient } from "@/lib/db";
import { provisionDatabase } from "@/lib/db/provision";
import { parseEnv } from "@/lib/env";
import { runScript } from "./lib/run-script";

runScript(async () => {
  const env = parseEnv();
  const database = await provisionDatabase(env);
  const prisma = createPrismaClient(database.url);
  try {
    const seeded = await seedCatalogue(prisma, env.SHOP_CURRENCY);
    console.log(
      `seeded ${seeded.products} products in ${env.SHOP_CURRENCY}; re-priced ${seeded.repricedCheckouts} open checkouts`,
    );
  } finally {
    await prisma.$disconnect();
    await database.stop();
  }
});
