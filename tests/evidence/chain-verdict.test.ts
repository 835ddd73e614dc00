/**
 * One chain verdict for every screen (issue 32): a run opened from a bundle reads
 * "verified in the bundle" in the header chip, the runs list and the banner alike, though
 * its stored copy has no recorder hashes; other runs read their stored chain status.
 */
import { describe, expect, it } from "vitest";
import { chainVerdict } from "@/lib/evidence/chain-verdict";

describe("chainVerdict", () => {
  it("a bundle run is verified in the bundle whatever its copy's chain reads, in the list (source) and on the page (provenance) alike", () => {
    const copy = { chainStatus: "unverified", chainBrokenAt: null };
    const list = chainVerdict({ ...copy, source: "bundle" });
    const page = chainVerdict({ ...copy, source: "bundle" }, { lastHash: "sha256:0123456789abcdef0123" });
    expect(list.status).toBe("verified");
    expect(list.text).toBe("verified in the bundle");
    expect(page.text).toBe(list.text);
    expect(page.title).toContain("0123456789ab");
  });

  it("other runs say their stored chain: verified, unverified, broken at the seq", () => {
    expect(chainVerdict({ chainStatus: "verified", chainBrokenAt: null, source: "upload" }).text).toBe("verified");
    expect(chainVerdict({ chainStatus: "unverified", chainBrokenAt: null, source: "import" })).toMatchObject({
      status: "unverified",
      text: "unverified",
    });
    expect(chainVerdict({ chainStatus: "broken", chainBrokenAt: 7 })).toMatchObject({ status: "broken", text: "broken at seq 7" });
    expect(chainVerdict({ chainStatus: "broken", chainBrokenAt: null }).text).toBe("broken");
    // an unknown status is not taken for a verified one
    expect(chainVerdict({ chainStatus: "weird", chainBrokenAt: null }).status).toBe("unverified");
  });
});
