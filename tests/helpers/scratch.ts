import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";

/**
 * A new folder in the system's temporary folder for the running test, removed
 * when the test passes: a demo's or a server's data (an embedded PostgreSQL is
 * tens of megabytes) would otherwise pile up run after run. A failed test
 * keeps its folder, database log included, to be looked at.
 */
export async function scratchDir(prefix: string): Promise<string> {
  const dir = await makeScratchDir(prefix);
  onTestFinished(async ({ task }) => {
    if (task.result?.state === "pass") await removeScratchDir(dir);
  });
  return dir;
}

/**
 * A new folder in the system's temporary folder, for a whole file (made in
 * `beforeAll`, removed with `removeScratchDir` once what used it has stopped).
 * Readable by all: as root, the embedded database runs as `postgres`, which
 * must reach it.
 */
export async function makeScratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  return dir;
}

/** Removes a folder `makeScratchDir` made. */
export async function removeScratchDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
}
