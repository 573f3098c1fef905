import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, portReservation } from "./app-env";

/**
 * Ports below the test range and the port plan's databases, so that no test
 * process of the machine reserves them in earnest while this file runs.
 */
const RANGE = { min: 19_900, max: 19_904 }; // freePort picks from 19900, 19901 and 19902

/** Another test process that has handed out `ports`, alive until killed. */
async function otherProcessHolding(ports: number[]) {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const net = require("node:net");
       let left = ${ports.length};
       for (const name of JSON.parse(process.argv[1]))
         net.createServer().listen(name, () => { if (--left === 0) console.log("held"); });`,
      JSON.stringify(ports.map(portReservation)),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("held") && resolve());
    void exited.then(() => reject(new Error("the holding process ended early")));
  });
  return { kill: () => (child.kill("SIGKILL"), exited) };
}

function canReserve(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(portReservation(port), () => server.close(() => resolve(true)));
  });
}

describe.runIf(process.platform === "linux")("freePort", () => {
  it("never hands out a port another test process holds, holds its own machine-wide, and frees them when a process dies", async () => {
    const other = await otherProcessHolding([19_900, 19_901]);
    try {
      // Nothing listens on 19900 or 19901: only the other process's reservation keeps them from this one.
      expect(await freePort(1, RANGE)).toBe(19_902);
      expect(await canReserve(19_902)).toBe(false);
      await expect(freePort(1, RANGE)).rejects.toThrow(/no 1 free consecutive ports between 19900 and 19904/);
    } finally {
      await other.kill();
    }
    // Killed with no chance to clean up, its reservations went with it.
    expect(await canReserve(19_900)).toBe(true);
    expect(await canReserve(19_901)).toBe(true);
  });
});
