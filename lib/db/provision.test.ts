import { describe, expect, it } from "vitest";
import { ConfigError } from "../env";
import { provisionDatabase, withDatabase } from "./provision";

describe("provisioning the database", () => {
  it("names DATABASE_URL when its server cannot be reached", async () => {
    const env = { DATABASE_URL: "postgresql://nobody@127.0.0.1:9/shop", DATA_DIR: ".data", EMBEDDED_PG_PORT: 54329 };
    const attempt = provisionDatabase(env);
    await expect(attempt).rejects.toThrow(ConfigError);
    const message = await provisionDatabase(env).then(
      () => "connected",
      (err: Error) => err.message,
    );
    expect(message).toMatch(
      /^DATABASE_URL: PostgreSQL at 127\.0\.0\.1:9\/shop does not answer \(.+\); start it, or point/,
    );
    expect(message.split("\n")).toHaveLength(1);
  });

  it("derives a sibling database URL, keeping credentials and options", () => {
    expect(withDatabase("postgresql://u:p@h:5432/app?sslmode=require", "app_test")).toBe(
      "postgresql://u:p@h:5432/app_test?sslmode=require",
    );
  });
});
