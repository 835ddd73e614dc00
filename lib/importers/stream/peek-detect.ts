/**
 * Detection on a stream's first bytes: STREAM_HEAD_BYTES, and when those may end inside a
 * long first line of a line format (a session that opens with a pasted log or screenshot,
 * a journal whose first event is large), up to LINE_HEAD_BYTES so its first lines are whole.
 * Its own module, beside peek-bytes.ts, for the same reason: journal ingest loads it.
 */
import { detectBytes, LINE_HEAD_BYTES, mayBeLongLines, STREAM_HEAD_BYTES, type Detection } from "../detect";
import { peekBytes } from "./peek-bytes";

export async function peekAndDetect(
  source: AsyncIterable<Uint8Array>,
  fileName?: string,
): Promise<{ head: Uint8Array; stream: AsyncIterable<Uint8Array>; detected: Detection }> {
  const first = await peekBytes(source, STREAM_HEAD_BYTES);
  const detected = detectBytes(first.head, fileName);
  if (!mayBeLongLines(first.head, detected)) return { ...first, detected };
  const more = await peekBytes(first.stream, LINE_HEAD_BYTES);
  return { ...more, detected: detectBytes(more.head, fileName) };
}
