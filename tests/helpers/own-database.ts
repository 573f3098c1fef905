import pg from "pg";
import { inject } from "vitest";
import type { ShopCurrency } from "@/lib/env";
import { migrateAndSeed } from "@/scripts/lib/stack";

/**
 * A database of a test file's own on the run's server, migrated and seeded
 * like the shared one. For tests whose subject works across customers — the
 * reconciler takes over *every* abandoned attempt it finds — so that it never
 * finishes another test file's attempts against the wrong emulator.
 */
export interface OwnDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Seeded in `currency`, the SHOP_CURRENCY of the server that will use it. */
export async function createOwnDatabase(label: string, currency: ShopCurrency = "usd"): Promise<OwnDatabase> {
  if (!/^[a-z]+$/.test(label)) throw new Error(`database label must be lowercase letters, got ${label}`);
  const shared = new URL(inject("databaseUrl"));
  // checkout_vitest_<pid>_<label>: global setup drops it with the run's own if a run dies.
  const name = `${shared.pathname.slice(1)}_${label}`;
  await admin(`drop database if exists "${name}" with (force)`);
  await admin(`create database "${name}"`);
  const url = new URL(`/${name}`, shared).toString();
  await migrateAndSeed(url, currency);
  return { url, drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("adminDatabaseUrl") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
