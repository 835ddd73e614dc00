/**
 * The bundle's container: a ustar archive (tar-stream), gzip-compressed with a fixed
 * header. Read back strictly: the gzip header must be the one written (its MTIME, flags
 * and OS bytes are covered by no checksum, so a changed one would otherwise pass), the
 * CRC-32 and length in the trailer must hold, nothing may follow the trailer, and the
 * deflate stream must be the one fflate writes for the tar (export is deterministic), so a
 * changed bit that decompresses alike is found too. The CRC covers every byte of the tar.
 */
import { Readable } from "node:stream";
import { crc32, inflateRaw } from "node:zlib";
import { gzip, gzipSync } from "fflate";
import tar from "tar-stream";

export interface Member {
  path: string;
  bytes: Uint8Array;
}

/** What fflate writes at level 9 with mtime 0: magic, deflate, no flags, MTIME 0, XFL 2 (best), OS 3 (Unix). */
const GZIP_HEADER = Uint8Array.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03]);

export async function packTarGz(members: readonly Member[], mtime: Date): Promise<Uint8Array> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const m of members) {
    await new Promise<void>((resolve, reject) =>
      pack.entry({ name: m.path, size: m.bytes.length, mode: 0o644, mtime, type: "file" }, Buffer.from(m.bytes), (err) =>
        err ? reject(err) : resolve(),
      ),
    );
  }
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks), { level: 9, mtime: 0 });
}

export class ArchiveError extends Error {}

/** The archive inflates past the size allowed (a gzip bomb, or a bundle over the document limit). */
export class ArchiveTooLarge extends ArchiveError {}

/** Most bytes the tar may inflate to unless the caller says (the server's RETRACE_MAX_DOCUMENT_BYTES default). */
export const DEFAULT_MAX_TAR_BYTES = 64 * 1024 * 1024;

// zlib's inflate on the libuv thread pool, stopped by zlib once its output passes the cap
const inflateRawCapped = (body: Buffer, maxOutputLength: number) =>
  new Promise<{ buffer: Buffer; engine: { bytesWritten: number } }>((resolve, reject) =>
    inflateRaw(body, { info: true, maxOutputLength }, (err, r) =>
      err ? reject(err) : resolve(r as unknown as { buffer: Buffer; engine: { bytesWritten: number } }),
    ),
  );

// fflate's asynchronous gzip compresses in a worker thread: level 9 over tens of MB takes
// seconds, which must not stop every other request
const gzipInWorker = (data: Uint8Array) =>
  new Promise<Uint8Array>((resolve, reject) => gzip(data, { level: 9, mtime: 0 }, (err, out) => (err ? reject(err) : resolve(out))));

/**
 * The tar inside a .tar.gz, checked byte for byte (header, deflate stream, CRC, length,
 * end). Inflated off the event loop and never past `maxBytes` (ArchiveTooLarge): a gzip
 * bomb costs that much inflation, not its size.
 */
export async function gunzipStrict(gz: Uint8Array, maxBytes = DEFAULT_MAX_TAR_BYTES): Promise<Buffer> {
  if (gz.length < GZIP_HEADER.length + 8) throw new ArchiveError("the file is too short to be a gzip archive");
  for (let i = 0; i < GZIP_HEADER.length; i++) {
    if (gz[i] !== GZIP_HEADER[i]) throw new ArchiveError(`the gzip header differs from the one Retrace writes (byte ${i})`);
  }
  const body = Buffer.from(gz.buffer, gz.byteOffset + GZIP_HEADER.length, gz.length - GZIP_HEADER.length);
  let tarBytes: Buffer;
  let consumed: number;
  try {
    const r = await inflateRawCapped(body, maxBytes);
    tarBytes = r.buffer;
    consumed = r.engine.bytesWritten;
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
      throw new ArchiveTooLarge(`the archive inflates to more than ${maxBytes} bytes; it was not read further`);
    throw new ArchiveError(`the compressed data is damaged (${(e as Error).message})`);
  }
  const trailer = body.subarray(consumed);
  if (trailer.length !== 8) throw new ArchiveError(`the archive ${trailer.length < 8 ? "is cut short" : "has bytes after its end"}`);
  if (trailer.readUInt32LE(0) !== crc32(tarBytes)) throw new ArchiveError("the archive's CRC-32 does not match its content");
  if (trailer.readUInt32LE(4) !== tarBytes.length % 2 ** 32)
    throw new ArchiveError("the archive's length field does not match its content");
  // Deflate has bits no checksum covers (the code lengths of symbols never used, padding):
  // a change there decompresses alike. Export compresses deterministically, so the file
  // must be exactly the compression of its content (compressed again in a worker).
  if (!Buffer.from(await gzipInWorker(tarBytes)).equals(Buffer.from(gz.buffer, gz.byteOffset, gz.length)))
    throw new ArchiveError(
      "the compressed data differs from what Retrace writes for this content (a changed byte that decompresses alike)",
    );
  return tarBytes;
}

/** The members of a tar, in order; anything but plain files, or a name twice, is an error. */
export async function untar(tarBytes: Buffer): Promise<Member[]> {
  const ex = tar.extract();
  const out: Member[] = [];
  const seen = new Set<string>();
  const feeding = new Promise<void>((resolve, reject) => {
    const src = Readable.from([tarBytes]);
    src.on("error", reject);
    ex.on("error", reject);
    ex.on("finish", resolve);
    src.pipe(ex);
  });
  try {
    for await (const entry of ex) {
      const chunks: Buffer[] = [];
      for await (const c of entry) chunks.push(c as Buffer);
      const name = entry.header.name;
      if (entry.header.type !== "file") throw new ArchiveError(`member "${name}" is not a plain file (${entry.header.type})`);
      if (seen.has(name)) throw new ArchiveError(`member "${name}" appears twice`);
      seen.add(name);
      out.push({ path: name, bytes: Buffer.concat(chunks) });
    }
    await feeding;
  } catch (e) {
    if (e instanceof ArchiveError) throw e;
    throw new ArchiveError(`the tar archive is damaged (${(e as Error).message})`);
  }
  return out;
}

export async function unpackTarGz(gz: Uint8Array, maxBytes?: number): Promise<Member[]> {
  return untar(await gunzipStrict(gz, maxBytes));
}

/** Re-packs members as given (tests and tools that change a bundle on purpose). */
export async function repack(members: readonly Member[]): Promise<Uint8Array> {
  return packTarGz(members, new Date(0));
}
