/**
 * `pgbouncer=true` in DATABASE_URL (Prisma's convention, which Supavisor and
 * other poolers follow): a pooler in transaction mode stands in front, handing
 * each transaction to whichever server connection is free. What lives on one
 * server connection beyond a transaction is then not the app's: a named
 * prepared statement, a session-level lock or setting, LISTEN. So the app
 * names no statement, takes only transaction-level locks (the migration
 * runner), and sends no startup parameter the pooler does not pass on:
 * PgBouncer refuses `statement_timeout`, which then comes from the server
 * (`ALTER ROLE … SET statement_timeout`). pg ignores the parameter itself.
 */
export const POOLER_PARAMETER = "pgbouncer";

export function behindTransactionPooler(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return new URL(url).searchParams.get(POOLER_PARAMETER) === "true";
  } catch {
    return false;
  }
}
