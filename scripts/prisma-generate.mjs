// `prisma generate` does not use the schema engine, but Prisma 7's CLI tries to
// download it unless PRISMA_SCHEMA_ENGINE_BINARY names an existing file. Point
// it at node itself so generation works offline.
import { spawnSync } from "node:child_process";

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const result = spawnSync("npx", ["prisma", "generate"], { stdio: "inherit", env });
process.exit(result.status ?? 1);
