// What an API handler hands back: a JSON body, or a stream of server-sent events. The
// server writes them; the handlers only say what the real API would send.

export interface SseEvent {
  /** the `event:` line; OpenAI Chat and Gemini send data lines only */
  event?: string;
  /** serialised as JSON unless it is already a string (`[DONE]`) */
  data: unknown;
}

export type Answer = { kind: "json"; status: number; body: unknown } | { kind: "sse"; events: SseEvent[]; separator?: string };

/** deterministic ids, unique within one fake: `toolu_fake_0003` */
export class IdSource {
  private n = 0;
  next(prefix: string): string {
    this.n += 1;
    return `${prefix}_fake_${String(this.n).padStart(4, "0")}`;
  }
}

/** a rough token count, so usage is present and grows with the input */
export function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** text cut into small pieces, so a stream has several deltas: three words a piece */
export function pieces(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(""));
  return out.length > 0 ? out : [text];
}

/** JSON text cut into pieces, as APIs stream tool arguments */
export function jsonPieces(value: object): string[] {
  const text = JSON.stringify(value);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 12) out.push(text.slice(i, i + 12));
  return out.length > 0 ? out : [text];
}
