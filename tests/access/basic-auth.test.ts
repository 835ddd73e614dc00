/** The Authorization header's key: Bearer, or Basic with the key as password (the Langfuse SDK's publicKey:secretKey). */
import { describe, expect, it } from "vitest";
import { bearerOrBasicKey } from "@/lib/server/access/authenticate";

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, "utf8").toString("base64")}`;

describe("bearerOrBasicKey", () => {
  it("takes a bearer key as it is", () => {
    expect(bearerOrBasicKey("Bearer rt_abc123")).toBe("rt_abc123");
    expect(bearerOrBasicKey("bearer\trt_abc123 ")).toBe("rt_abc123");
  });
  it("takes the password of Basic credentials (Langfuse: public key, then secret key)", () => {
    expect(bearerOrBasicKey(basic("pk-lf-1234:rt_secret"))).toBe("rt_secret");
    expect(bearerOrBasicKey(basic(":rt_secret"))).toBe("rt_secret");
  });
  it("refuses what carries no key", () => {
    expect(bearerOrBasicKey(basic("pk-lf-1234"))).toBeNull();
    expect(bearerOrBasicKey(basic("pk-lf-1234:"))).toBeNull();
    expect(bearerOrBasicKey(basic("user:two words"))).toBeNull();
    expect(bearerOrBasicKey("Digest abc")).toBeNull();
    expect(bearerOrBasicKey("Bearer")).toBeNull();
  });
});
