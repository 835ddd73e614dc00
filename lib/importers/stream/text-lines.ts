/**
 * A byte stream as its lines of text, as `text.split("\n")` gives them for the whole text
 * (the last piece included, empty when the text ends with a newline): decoded as UTF-8, one
 * BOM dropped, a line split across chunks joined. `onText` sees every piece of decoded text
 * (to hash the content on the way).
 */
export async function* textLines(source: AsyncIterable<Uint8Array>, onText?: (text: string) => void): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let partial: string[] = [];
  let atStart = true;
  function* split(text: string): Generator<string> {
    if (atStart && text.length > 0) {
      atStart = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length === 0) return;
    onText?.(text);
    let from = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", from)) {
      const piece = text.slice(from, nl);
      yield partial.length > 0 ? partial.join("") + piece : piece;
      partial = [];
      from = nl + 1;
    }
    if (from < text.length) partial.push(text.slice(from));
  }
  for await (const chunk of source) yield* split(decoder.decode(chunk, { stream: true }));
  yield* split(decoder.decode());
  yield partial.join("");
}
