/**
 * MCP's stdio framing: one JSON-RPC message per line, UTF-8. A line that is not JSON-RPC is
 * reported (with its line number) and skipped, never passed on.
 */
import readline from "node:readline";
import type { Readable, Writable } from "node:stream";
import { parseLine, type JsonRpcMessage } from "../../mcp";

/** Calls `onMessage` for each message read from `input`, `onEnd` when it closes. */
export function readMessages(
  input: Readable,
  onMessage: (m: JsonRpcMessage) => void,
  onBadLine: (line: number, why: string) => void,
  onEnd: () => void,
): void {
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  rl.on("line", (line) => {
    n++;
    if (line.trim() === "") return;
    const parsed = parseLine(line);
    if (typeof parsed === "string") onBadLine(n, parsed);
    else for (const m of parsed) onMessage(m);
  });
  rl.on("close", onEnd);
}

export function writeMessage(out: Writable, m: JsonRpcMessage): void {
  out.write(JSON.stringify(m) + "\n");
}
