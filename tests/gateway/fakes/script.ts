// The script a fake upstream answers from: one Turn per model request, in order. A request
// the script does not expect (a title request, a quota probe) is a side request: it gets a
// short text and consumes no turn.

/** One request as the fake received it; `body` is the parsed JSON, or the raw text. */
export interface FakeRequest {
  method: string;
  /** path with its query, exactly as sent (`/v1/messages?beta=true`) */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface ToolCall {
  name: string;
  arguments: object;
}

export interface Turn {
  text?: string;
  toolCalls?: ToolCall[];
  /** the thinking text streamed before the answer when the request turns thinking on */
  thinking?: string;
  /** this turn answers only a request it accepts; any other request is a side request */
  match?: (request: FakeRequest) => boolean;
}

export interface ScriptOptions {
  /** a request this accepts is a side request whatever the next turn says */
  isSide?: (request: FakeRequest) => boolean;
  /** the text a side request gets */
  sideText?: string;
}

/** Side requests are the ones with no tools: what Claude Code's title and quota requests are. */
export function withoutTools(request: FakeRequest): boolean {
  const body = request.body as { tools?: unknown[] } | null;
  return !Array.isArray(body?.tools) || body.tools.length === 0;
}

export type Pick = { kind: "turn"; turn: Turn; index: number } | { kind: "side"; turn: Turn } | { kind: "exhausted" };

export class ScriptCursor {
  private next = 0;
  constructor(
    private readonly turns: readonly Turn[],
    private readonly options: ScriptOptions = {},
  ) {}

  /** the turn answering this request; a side request consumes none */
  take(request: FakeRequest): Pick {
    const side: Turn = { text: this.options.sideText ?? "Side answer." };
    if (this.options.isSide?.(request)) return { kind: "side", turn: side };
    const turn = this.turns[this.next];
    if (turn === undefined) return { kind: "exhausted" };
    if (turn.match && !turn.match(request)) return { kind: "side", turn: side };
    return { kind: "turn", turn, index: this.next++ };
  }

  get consumed(): number {
    return this.next;
  }
}
