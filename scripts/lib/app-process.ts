import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { ConfigError } from "@/lib/env";
import { portTaken } from "@/lib/ports";
import { sleep } from "@/lib/sleep";

/**
 * One `next start` server process (or `next dev` with `dev`). Tests use it
 * too: they kill it with SIGKILL mid-payment and start it again, as a crashed
 * host would.
 */
const nextBin = createRequire(import.meta.url).resolve("next/dist/bin/next");
/**
 * How long an idle keep-alive connection stays open. Node's default, 5 s, is
 * shorter than a load balancer's idle timeout (60 s on AWS's), so a balancer
 * or a client reusing a connection the server is closing at that moment gets a
 * reset (a 502 behind a balancer). Longer than the balancer's, the balancer
 * closes first.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface AppProcess {
  url: string;
  pid: number;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export async function startApp(options: {
  port: number;
  env: Record<string, string>;
  log?: (line: string) => void;
  readyTimeoutMs?: number;
  /** `next dev` (hot reload, compiled on demand) instead of the production build. */
  dev?: boolean;
  /** The address to listen on (HOST); unset, Next's default: every interface. */
  hostname?: string;
}): Promise<AppProcess> {
  const url = `http://localhost:${options.port}`;
  const tail: string[] = [];
  const listen = ["-p", String(options.port), ...(options.hostname ? ["-H", options.hostname] : [])];
  const args = options.dev
    ? ["dev", ...listen]
    : ["start", ...listen, "--keepAliveTimeout", String(KEEP_ALIVE_TIMEOUT_MS)];
  const child: ChildProcess = spawn(process.execPath, [nextBin, ...args], {
    env: {
      ...process.env,
      NODE_ENV: options.dev ? "development" : "production",
      NEXT_TELEMETRY_DISABLED: "1",
      ...options.env,
      PORT: String(options.port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const onOutput = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n").filter(Boolean)) {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      options.log?.(line);
    }
  };
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  const app: AppProcess = {
    url,
    pid: child.pid!,
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  const ready = await waitForHttp(`${url}/api/health`, exited, options.readyTimeoutMs ?? 60_000);
  if (!ready) {
    await app.stop("SIGKILL");
    // Taken between the start-up check and Next's own listen: still one line.
    if (tail.some((line) => line.includes("EADDRINUSE"))) throw new ConfigError(portTaken(options.port, "PORT"));
    // The server refused its configuration (see lib/startup.ts): its own lines say what to set.
    const refusal = tail.filter((line) => /^[A-Z][A-Z0-9_]+: /.test(line));
    if (refusal.length > 0) throw new ConfigError(refusal.join("\n"));
    throw new Error(`The app did not become ready on ${url}. Last output:\n${tail.join("\n")}`);
  }
  return app;
}

/** Polls until the server answers at all (health may be 503 while a dependency is down). */
async function waitForHttp(url: string, exited: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let dead = false;
  void exited.then(() => (dead = true));
  const deadline = Date.now() + timeoutMs;
  while (!dead && Date.now() < deadline) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(5_000) });
      return true;
    } catch {
      await sleep(200);
    }
  }
  return false;
}
