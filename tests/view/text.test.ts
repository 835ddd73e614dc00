import { describe, expect, it } from "vitest";
import { hasInvisibles, revealInvisibles, truncate, visibleText } from "@/lib/view/text";

describe("payload text", () => {
  it("shows a right-to-left override that would make 'gpj.exe' read as 'exe.jpg' as a marker", () => {
    const segs = revealInvisibles("invoice\u202Egpj.exe");
    expect(segs).toEqual([
      { kind: "text", text: "invoice" },
      { kind: "invisible", code: "U+202E", label: "right-to-left override" },
      { kind: "text", text: "gpj.exe" },
    ]);
  });

  it("reveals zero-width characters hidden inside a word, and leaves tabs and newlines alone", () => {
    expect(hasInvisibles("pay\u200Bpal")).toBe(true);
    expect(revealInvisibles("a\u200Db").map((s) => (s.kind === "text" ? s.text : s.code))).toEqual(["a", "U+200D", "b"]);
    expect(revealInvisibles("line\tone\nline two")).toEqual([{ kind: "text", text: "line\tone\nline two" }]);
    expect(hasInvisibles("plain ascii <script>alert(1)</script>")).toBe(false);
  });

  it("cuts a 5 MB string to the limit without splitting a surrogate pair", () => {
    const big = "x".repeat(5 * 1024 * 1024);
    const t = truncate(big, 600);
    expect(t.text).toHaveLength(600);
    expect(t.cut).toBe(big.length - 600);
    const emoji = "a".repeat(9) + "😀" + "b";
    expect(truncate(emoji, 10).text).toBe("a".repeat(9));
    expect(truncate("short", 10)).toEqual({ text: "short", cut: 0 });
  });
});

describe("visibleText (plain-text places: list rows, graph nodes, canvas labels)", () => {
  it("turns every invisible into a visible code point marker", () => {
    expect(visibleText("invoice\u202Egpj.exe")).toBe("invoice⟨U+202E⟩gpj.exe");
    expect(visibleText("pay\u200Bpal")).toBe("pay⟨U+200B⟩pal");
    expect(visibleText("plain")).toBe("plain");
    expect(visibleText(null)).toBe("");
  });
});
