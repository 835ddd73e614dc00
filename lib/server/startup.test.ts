import net from "node:net";
import { describe, expect, it } from "vitest";
import { boundFromArgv, isLoopbackAddress, listeningAddresses } from "./startup";

const listen = (host: string) =>
  new Promise<net.Server>((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, host, () => resolve(s));
  });
const close = (s: net.Server) => new Promise<void>((resolve) => s.close(() => resolve()));

describe("where the server listens", () => {
  it("sees this process's listening servers, with their address and port, and only while they listen", async () => {
    const local = await listen("127.0.0.1");
    const everywhere = await listen("0.0.0.0");
    try {
      const seen = listeningAddresses();
      expect(seen).not.toBeNull();
      expect(seen).toContainEqual({ host: "127.0.0.1", port: String((local.address() as net.AddressInfo).port) });
      expect(seen).toContainEqual({ host: "0.0.0.0", port: String((everywhere.address() as net.AddressInfo).port) });
    } finally {
      await close(everywhere);
    }
    expect(listeningAddresses()!.map((b) => b.host)).not.toContain("0.0.0.0");
    await close(local);
  });

  it("falls back to next start's -H and -p; no -H is every address, whatever HOSTNAME says", () => {
    expect(boundFromArgv(["node", "next", "start", "-H", "127.0.0.1", "-p", "3001"], {})).toEqual({ host: "127.0.0.1", port: "3001" });
    expect(boundFromArgv(["node", "next", "start", "--hostname=::1", "--port=4000"], {})).toEqual({ host: "::1", port: "4000" });
    expect(boundFromArgv(["node", "next", "start"], { HOSTNAME: "127.0.0.1", PORT: "3005" })).toEqual({ host: "0.0.0.0", port: "3005" });
  });

  it("counts only loopback addresses as loopback", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "::ffff:127.0.0.1", "localhost"]) expect(isLoopbackAddress(h), h).toBe(true);
    for (const h of ["0.0.0.0", "::", "10.0.0.5", "192.168.1.2", "127.0.0.1.nip.io", "::ffff:10.0.0.1", "myhost"])
      expect(isLoopbackAddress(h), h).toBe(false);
  });
});
