import "server-only";
/**
 * A request body's gzip, inflated with a ratio cap on node:zlib. Not DecompressionStream:
 * cancelling a web stream while its zlib still has output in flight throws an uncatchable
 * ERR_INVALID_STATE from Node's adapter (nodejs/node#64529), so a gzip bomb refused
 * mid-inflate could take the server down. A Node stream is simply destroyed.
 */
import { createGunzip } from "node:zlib";
import { gzipHead, JournalReadError, type ByteSource } from "../journal/reader";

interface GunzipLimits {
  /**
   * Most bytes inflated per compressed byte read (a gzip bomb inflates a thousandfold);
   * checked once the output passes `floorBytes`, so small bodies are never refused on it.
   */
  maxRatio: number;
  /** Output below which the ratio is not checked (default 1 MiB). */
  floorBytes?: number;
}

/** A gzip body inflates past its ratio limit (GunzipLimits.maxRatio); nothing more is inflated. */
export class InflateLimitError extends Error {}

// Compressed bytes fed to the inflater at a time: one piece inflates to at most ~1,032×
// its size, so the ratio check runs before a bomb's output piles up.
const GUNZIP_PIECE = 4096;

/**
 * Yields the bytes, gunzipped when they start with the gzip magic number; stops
 * (InflateLimitError) as soon as the output outgrows the compressed input read so far by
 * more than the ratio: a bomb costs about `floorBytes` of inflation, not its size. An
 * error of the source (a size limit counted on the wire) comes out as it is.
 */
export async function* gunzipLimited(source: ByteSource, limits: GunzipLimits): AsyncGenerator<Uint8Array> {
  const opened = await gzipHead(source);
  if (opened === null) return;
  const { head, rest } = opened;
  if (!opened.gzip) {
    yield head;
    yield* rest;
    return;
  }
  const gz = createGunzip();
  let fed = 0;
  let sourceError: unknown = null;
  let stopped = false;
  // resolves when the gunzip can take more, or is gone (destroyed: stop feeding)
  const writable = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        gz.off("drain", done);
        gz.off("close", done);
        resolve();
      };
      gz.on("drain", done);
      gz.on("close", done);
    });
  const feed = async (chunk: Uint8Array) => {
    for (let at = 0; at < chunk.length && !stopped && !gz.destroyed; at += GUNZIP_PIECE) {
      const piece = chunk.subarray(at, at + GUNZIP_PIECE);
      fed += piece.length;
      if (!gz.write(piece)) await writable();
    }
  };
  const pump = (async () => {
    try {
      await feed(head);
      for await (const chunk of rest) {
        if (stopped || gz.destroyed) return;
        await feed(chunk);
      }
      gz.end();
    } catch (e) {
      if (!stopped) sourceError = e;
      gz.destroy();
    }
  })();
  const floor = limits.floorBytes ?? 1024 * 1024;
  let out = 0;
  let finished = false;
  try {
    const chunks = gz[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = await chunks.next();
      } catch {
        if (sourceError !== null) throw sourceError;
        throw new JournalReadError("the gzip stream is corrupt or truncated");
      }
      if (r.done) break;
      out += r.value.length;
      if (out > floor && out > limits.maxRatio * fed) {
        throw new InflateLimitError(
          `the gzip body inflates more than ${limits.maxRatio} times its compressed size (RETRACE_MAX_GZIP_RATIO); nothing was stored`,
        );
      }
      yield new Uint8Array(r.value.buffer, r.value.byteOffset, r.value.length);
    }
    // a source that failed ends the gunzip early: what came out is not the whole body
    await pump;
    if (sourceError !== null) throw sourceError;
    finished = true;
  } finally {
    if (!finished) {
      // stopped early (a limit, or the consumer left): the pump may wait on the network,
      // so it is told to stop and not waited for
      stopped = true;
      gz.destroy();
      void pump;
    }
  }
}
