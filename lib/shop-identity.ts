import { randomBytes } from "node:crypto";
import { ConfigError, SHOP_ID_ADVICE, type Env } from "./env";
import { withClient } from "./db/reachable";

/**
 * The shop a database belongs to, recorded in it once (docs/decisions/0022).
 * Every process of the database — each app instance, cron's reconcile, an
 * audit from another host — takes its identity from there, so none judges
 * another's intents "another shop's". SHOP_ID names it the first time and
 * must agree with it after.
 */
export async function establishShopIdentity(
  databaseUrl: string,
  given: string | undefined,
  /** A local database (the demo's, dev's): without SHOP_ID it is named `local-<random>` once. */
  options: { mayName: boolean },
): Promise<string> {
  return withClient(databaseUrl, async (client) => {
    const candidate = given ?? (options.mayName ? `local-${randomBytes(6).toString("hex")}` : undefined);
    let recorded: string | undefined;
    try {
      if (candidate !== undefined)
        // Two processes naming a new database at once: the first wins, the other is judged against it below.
        await client.query(`insert into shop_identity (shop_id) values ($1) on conflict do nothing`, [candidate]);
      const { rows } = await client.query<{ shop_id: string }>(`select shop_id from shop_identity`);
      recorded = rows[0]?.shop_id;
    } catch (err) {
      if ((err as { code?: string }).code === "42P01")
        throw new ConfigError(
          "DATABASE_URL: the database is not migrated (no shop_identity): run `npm run db:migrate`",
        );
      throw err;
    }
    if (recorded === undefined)
      throw new ConfigError(`SHOP_ID: required: this database names no shop yet; ${SHOP_ID_ADVICE}`);
    if (given !== undefined && given !== recorded)
      throw new ConfigError(
        `SHOP_ID: ${given} is not the shop this database belongs to (${recorded}); set SHOP_ID=${recorded} or unset it`,
      );
    return recorded;
  });
}

/** A script's configuration with its database's shop identity: a local (embedded) database is named if it names none. */
export async function withShopIdentity(env: Env, database: { url: string; embedded: boolean }): Promise<Env> {
  const shopId = await establishShopIdentity(database.url, env.SHOP_ID, { mayName: database.embedded });
  return { ...env, SHOP_ID: shopId, shopId };
}
