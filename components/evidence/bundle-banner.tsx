import type { ChainVerdict } from "@/lib/evidence/chain-verdict";
import type { BundleProvenance } from "@/lib/evidence/opened";

/**
 * Shown on every frame of a run opened from an audit bundle: where the evidence came from,
 * and that it is read-only (the server refuses notes, exports and appends on it). Its chain
 * words are the header chip's verdict (lib/evidence/chain-verdict.ts), sent by the page.
 */
export function BundleBanner({ bundle, chain }: { bundle: BundleProvenance; chain: ChainVerdict }) {
  return (
    <div className="bundle-banner" role="note" aria-label="From bundle" data-testid="bundle-banner">
      <b>From bundle</b>
      <span>
        verified, signed by key <span className="mono">{bundle.keyId}</span>
        {bundle.signedHere ? " (this deployment's)" : " (not this deployment's key: compare it with the sender's /api/keys/audit)"}
      </span>
      <span>
        exported {bundle.exportedAt} by {bundle.exporter}, profile <b>{bundle.profile}</b>
      </span>
      <span>
        run <span className="mono">{bundle.run}</span> of project {bundle.project}
      </span>
      <span title={chain.title} data-testid="bundle-chain">
        chain {chain.text}
        {bundle.lastHash ? (
          <>
            {" "}
            (last hash <span className="mono">{bundle.lastHash.slice(7, 19)}…</span>)
          </>
        ) : null}
      </span>
      <span className="muted" title={`bundle SHA-256 ${bundle.sha256}; manifest SHA-256 ${bundle.manifestSha256}`}>
        bundle <span className="mono">{bundle.sha256.slice(0, 12)}…</span> · read-only
      </span>
    </div>
  );
}
