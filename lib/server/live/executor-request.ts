import "server-only";
/**
 * One POST to an executor, over node:http(s) rather than fetch: the connection goes to the
 * address executor-hosts.ts checked (its `lookup` answers with that address), so the host
 * cannot resolve to another one between the check and the connection. No redirect is
 * followed (an answer of 3xx is a failure) and the answer is read up to a cap.
 */
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { checkedAddress, type ExecutorHosts, type Resolve } from "./executor-hosts";

/** An executor's answer is JSON of a call's result: past this it is refused unread. */
export const MAX_EXECUTOR_ANSWER_BYTES = 16 * 1024 * 1024;

export interface ExecutorAnswer {
  status: number;
  text: string;
}

export interface ExecutorRequestOptions {
  /** hosts the deployment allows beside public ones (none when absent) */
  allow: ExecutorHosts | undefined;
  timeoutMs: number;
  /** how host names are resolved (the system resolver unless given) */
  resolve?: Resolve;
}

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

/** POSTs `body` to `url`; throws ExecutorHostRefused before connecting when the host is refused. */
export async function postToExecutor(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: ExecutorRequestOptions,
): Promise<ExecutorAnswer> {
  const u = new URL(url);
  const target = await checkedAddress(u, opts.allow, opts.resolve);
  const lookup = ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  }) as unknown as LookupFunction;
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const send = u.protocol === "https:" ? https.request : http.request;
  return new Promise<ExecutorAnswer>((resolve, reject) => {
    const fail = (e: unknown) => reject(signal.aborted ? named("TimeoutError", "the executor did not answer in time") : e);
    const req = send(
      u,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup,
        signal,
        // a fresh connection each time: a pooled one may have been opened to another address
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_EXECUTOR_ANSWER_BYTES) {
            res.destroy();
            reject(named("AnswerTooLarge", "the executor's answer is too large"));
            return;
          }
          chunks.push(c);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}
