import { ConfigError, parseEnv, type Env } from "./env";
import { SECRET_ADVICE } from "./security/secret-strength";

/**
 * What a production server cannot serve without, checked when it starts (see
 * instrumentation.ts, and scripts/start.ts before it spawns the server).
 * Next.js only logs an error thrown while it registers and then answers every
 * request with 500, so the process exits instead: an orchestrator sees a
 * failed start, not a healthy-looking broken server. Each problem is one line
 * naming the variable to set.
 */
export function productionProblems(env: Env): string[] {
  if (env.NODE_ENV !== "production") return [];
  const problems: string[] = [];
  if (!env.DATABASE_URL) {
    problems.push(
      "DATABASE_URL: required in production (postgresql://user:pass@host:5432/checkout); `npm run demo` runs everything on an embedded database instead",
    );
  }
  if (!env.SESSION_SECRET) problems.push(`SESSION_SECRET: required in production: ${SECRET_ADVICE}`);
  return problems;
}

/** The configuration, or the process ends with one line per problem. */
export function configurationOrExit(source: Record<string, string | undefined> = process.env): Env {
  let env: Env;
  try {
    env = parseEnv(source);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return refuse(err.message.split("\n"));
  }
  const problems = productionProblems(env);
  return problems.length > 0 ? refuse(problems) : env;
}

function refuse(lines: string[]): never {
  console.error(lines.join("\n"));
  process.exit(1);
}
