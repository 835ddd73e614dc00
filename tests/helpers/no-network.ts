/**
 * Every network entry point a replay could reach (fetch, XMLHttpRequest, WebSocket, http,
 * https, net) stubbed to throw and to note the attempt, for the tests of the describe block
 * that calls this. The returned list is emptied before each test.
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { afterEach, beforeEach, vi } from "vitest";

export function refuseNetwork(): string[] {
  const attempts: string[] = [];
  const saved: Record<string, unknown> = {};
  const g = globalThis as Record<string, unknown>;
  const refuse =
    (what: string) =>
    (...args: unknown[]) => {
      attempts.push(`${what} ${String(args[0])}`);
      throw new Error(`network call attempted during a replay: ${what}`);
    };
  beforeEach(() => {
    attempts.length = 0;
    for (const k of ["fetch", "XMLHttpRequest", "WebSocket"]) saved[k] = g[k];
    g.fetch = refuse("fetch");
    g.XMLHttpRequest = class {
      open(...args: unknown[]) {
        refuse("XMLHttpRequest")(...args);
      }
    };
    g.WebSocket = class {
      constructor(url: unknown) {
        refuse("WebSocket")(url);
      }
    };
    vi.spyOn(http, "request").mockImplementation(refuse("http.request") as never);
    vi.spyOn(http, "get").mockImplementation(refuse("http.get") as never);
    vi.spyOn(https, "request").mockImplementation(refuse("https.request") as never);
    vi.spyOn(https, "get").mockImplementation(refuse("https.get") as never);
    vi.spyOn(net, "connect").mockImplementation(refuse("net.connect") as never);
    vi.spyOn(net, "createConnection").mockImplementation(refuse("net.createConnection") as never);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const [k, v] of Object.entries(saved)) g[k] = v;
  });
  return attempts;
}
