import { describe, expect, it } from "vitest";
import { BadChromiumPath, findBrowser, installPlan, type BrowserProbes } from "@/scripts/lib/browser";

const PLAYWRIGHT_CHROME = "/home/me/.cache/ms-playwright/chromium-1/chrome-linux64/chrome";

function probes(executables: string[], env: Record<string, string | undefined> = {}): BrowserProbes {
  return { env, isExecutable: (path) => executables.includes(path), playwrightExecutable: () => PLAYWRIGHT_CHROME };
}

describe("findBrowser", () => {
  it("takes CHROMIUM_PATH before anything on the system", () => {
    const found = findBrowser(probes(["/opt/chrome", "/usr/bin/chromium"], { CHROMIUM_PATH: "/opt/chrome" }));
    expect(found).toEqual({ source: "CHROMIUM_PATH", executablePath: "/opt/chrome" });
  });

  it("refuses a CHROMIUM_PATH that is not an executable rather than using another browser", () => {
    expect(() => findBrowser(probes(["/usr/bin/chromium"], { CHROMIUM_PATH: "/nope" }))).toThrow(BadChromiumPath);
  });

  it("takes the system Chromium, in order, before Playwright's cache", () => {
    expect(findBrowser(probes(["/usr/bin/google-chrome", "/usr/bin/chromium-browser", PLAYWRIGHT_CHROME]))).toEqual({
      source: "system",
      executablePath: "/usr/bin/chromium-browser",
    });
  });

  it("takes Debian's headless shell before the full Chromium", () => {
    expect(findBrowser(probes(["/usr/bin/chromium", "/usr/bin/chromium-headless-shell"]))).toEqual({
      source: "system",
      executablePath: "/usr/bin/chromium-headless-shell",
    });
  });

  it("leaves the executable to Playwright when only its own browser is installed", () => {
    expect(findBrowser(probes([PLAYWRIGHT_CHROME]))).toEqual({ source: "playwright", executablePath: undefined });
  });

  it("finds nothing on a machine without a browser", () => {
    expect(findBrowser(probes([]))).toBeNull();
  });
});

describe("installPlan", () => {
  it("downloads Playwright's browser first and falls back to apt as root on Debian", () => {
    expect(installPlan({ networkReachable: true, debianLike: true, isRoot: true })).toEqual(["playwright", "apt"]);
  });

  it("uses apt when Playwright's host is unreachable but the machine is Debian and ours", () => {
    expect(installPlan({ networkReachable: false, debianLike: true, isRoot: true })).toEqual(["apt"]);
  });

  it("never tries apt without root or off Debian/Ubuntu", () => {
    expect(installPlan({ networkReachable: true, debianLike: true, isRoot: false })).toEqual(["playwright"]);
    expect(installPlan({ networkReachable: true, debianLike: false, isRoot: true })).toEqual(["playwright"]);
  });

  it("has nothing to try offline without root: the caller stops with one line", () => {
    expect(installPlan({ networkReachable: false, debianLike: true, isRoot: false })).toEqual([]);
  });
});
