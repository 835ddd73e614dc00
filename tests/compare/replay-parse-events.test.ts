/**
 * The replay page reads the events API as text: integers beyond 2^53 stay exact, the next
 * page is found without parsing, and the chain the replay verifies is the recorder's
 * unless Retrace redacted something.
 */
import { describe, expect, it } from "vitest";
import { eventsFromPages, nextAfterOf, parsePage } from "../../components/replay/parse-events";

const row = (seq: number, redactions: number, data: string) =>
  `{"seq":${seq},"chain":"ok","recordedHash":"sha256:rec${seq}","redactions":${redactions},"event":{"run":"r","seq":${seq},"ts":"2026-11-07T11:00:00.000Z","type":"note","data":${data},"hash":"sha256:srv${seq}"}}`;
const page = (rows: string[], nextAfter: number | null) => `{"events":[${rows.join(",")}],"nextAfter":${nextAfter}}`;

describe("events pages", () => {
  it("finds where the next page starts from the end of the text", () => {
    expect(nextAfterOf(page([row(0, 0, "{}")], 4999))).toBe(4999);
    expect(nextAfterOf(page([row(0, 0, "{}")], null))).toBeNull();
  });

  it("keeps an integer beyond 2^53 exact", () => {
    const p = parsePage(page([row(0, 0, '{"n":12345678901234567890,"f":1.5}')], null));
    expect(p.events[0].event.data).toEqual({ n: 12345678901234567890n, f: 1.5 });
  });

  it("verifies the recorder's chain when nothing was redacted, Retrace's own otherwise", () => {
    const clean = eventsFromPages([page([row(0, 0, "{}"), row(1, 0, "{}")], null)]);
    expect(clean.chain).toBe("recorder");
    expect(clean.events.map((e) => e.hash)).toEqual(["sha256:rec0", "sha256:rec1"]);
    const redacted = eventsFromPages([page([row(0, 0, "{}")], 0), page([row(1, 2, '{"text":"[REDACTED:1]"}')], null)]);
    expect(redacted.chain).toBe("server");
    expect(redacted.events.map((e) => e.hash)).toEqual(["sha256:srv0", "sha256:srv1"]);
    // and says which events were stored redacted, for the replay's state checks
    expect([...redacted.redacted]).toEqual([1]);
    expect([...clean.redacted]).toEqual([]);
  });
});
