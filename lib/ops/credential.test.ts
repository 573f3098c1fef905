import { describe, expect, it } from "vitest";
import { operatorOf, sealOperator } from "./credential";

const TOKEN = "c7d1a9e3f5b2086d4e1c7a3f9b5d2e8a0c6f4b1d7e3a9c5f2b8d0e6a4c1f7b3d";
const ROTATED = "4b8e2f6a0c3d7e1b5f9a2c6e0d4b8f3a7c1e5d9b2f6a0c4e8d3b7f1a5c9e2d6b";

describe("the operator's cookie", () => {
  it("names its operator under the token that sealed it, and nobody once OPS_TOKEN changes", async () => {
    const seal = await sealOperator({ name: "Ada" }, TOKEN);
    expect(await operatorOf(seal, TOKEN)).toEqual({ name: "Ada" });
    expect(await operatorOf(seal, ROTATED)).toBeNull();
    expect(await operatorOf(`${seal.slice(0, -2)}xx`, TOKEN)).toBeNull();
  });
});
