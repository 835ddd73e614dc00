/**
 * The address login throttling counts: a client cannot choose it by sending
 * X-Forwarded-For (next start keeps a header it receives), unless a trusted proxy sets it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientAddress, guardForwardedFor } from "@/lib/server/access/client-address";

describe("X-Forwarded-For guard", () => {
  let server: http.Server;
  let url: string;
  let seen: string | undefined;
  beforeAll(async () => {
    guardForwardedFor();
    guardForwardedFor(); // twice is once
    server = http.createServer((req, res) => {
      seen = req.headers["x-forwarded-for"] as string | undefined;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    delete process.env.RETRACE_TRUST_PROXY;
    await new Promise((r) => server.close(r));
  });

  it("replaces what the client sent with the socket's peer", async () => {
    await fetch(url, { headers: { "x-forwarded-for": "10.77.0.1" } });
    expect(seen).toBe("127.0.0.1");
    await fetch(url);
    expect(seen).toBe("127.0.0.1");
  });

  it("keeps the header behind a trusted proxy (RETRACE_TRUST_PROXY=1)", async () => {
    process.env.RETRACE_TRUST_PROXY = "1";
    await fetch(url, { headers: { "x-forwarded-for": "10.77.0.1, 203.0.113.9" } });
    expect(seen).toBe("10.77.0.1, 203.0.113.9");
  });
});

describe("clientAddress", () => {
  it("is the last entry: the peer, or the client as the trusted proxy saw it", () => {
    expect(clientAddress(new Headers({ "x-forwarded-for": "127.0.0.1" }))).toBe("127.0.0.1");
    // a client's own claim comes first; the proxy appends what it saw
    expect(clientAddress(new Headers({ "x-forwarded-for": "10.77.0.1, 203.0.113.9" }))).toBe("203.0.113.9");
    expect(clientAddress(new Headers())).toBe("unknown");
  });
});
