// npm run db:migrate — applies pending migrations to DATABASE_URL or the embedded database.
import "./lib/dotenv";
import { parseEnv } from "@/lib/env";
import { migrate } from "@/lib/db/migrate";
import { provisionDatabase } from "@/lib/db/provision";
import { withShopIdentity } from "@/lib/shop-identity";
import { runScript } from "./lib/run-script";

runScript(async () => {
  const config = parseEnv();
  const database = await provisionDatabase(config);
  try {
    const { applied, alreadyApplied } = await migrate(database.url);
    for (const name of applied) console.log(`applied  ${name}`);
    console.log(`${applied.length} applied, ${alreadyApplied.length} already applied`);
    // Named here once (SHOP_ID, or a local name for the embedded database); every process then agrees with it.
    console.log(`shop     ${(await withShopIdentity(config, database)).shopId}`);
  } finally {
    await database.stop();
  }
});
