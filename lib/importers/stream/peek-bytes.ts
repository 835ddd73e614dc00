/*
 * Its own module, not in stream/index.ts: journal ingest peeks at every body, and loading
 * every importer (protobufjs among them) to do so cost each CLI start and cold upload.
 */

/** Reads at least `bytes` bytes ahead (or the whole source, if shorter) and replays them. */
export async function peekBytes(
  source: AsyncIterable<Uint8Array>,
  bytes: number,
): Promise<{ head: Uint8Array; stream: AsyncIterable<Uint8Array> }> {
  const it = source[Symbol.asyncIterator]();
  const held: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < bytes) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    held.push(r.value);
    size += r.value.length;
  }
  const head = new Uint8Array(size);
  let at = 0;
  for (const h of held) {
    head.set(h, at);
    at += h.length;
  }
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* held;
    held.length = 0;
    if (done) return;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  return { head, stream: replay() };
}
