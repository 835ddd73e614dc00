"use client";
import Link from "next/link";
import { useState } from "react";

interface Answer {
  ok: boolean;
  failures: { member: string; seq?: number; message: string }[];
  keyId: string | null;
  signedByThisDeployment: boolean;
  deploymentKeyId: string;
  members: number;
  events: number;
  manifest: {
    exportedAt: string;
    exporter: string;
    profile: string;
    runs: { id: string; events: number; findings: number; notes: number }[];
  } | null;
}

interface Opened {
  project: string;
  runs: { id: string; original: string; events: number; findings: number; notes: number; already: boolean }[];
}

/**
 * Upload an audit bundle and see whether it holds: the server checks it against this
 * deployment's key. A bundle that holds may be opened as read-only runs (reviewer and up).
 */
export function VerifyView({ openIn }: { openIn: { project: string; may: boolean } }) {
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [opened, setOpened] = useState<Opened | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  const [opening, setOpening] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState("");
  async function check(file: File) {
    setBusy(true);
    setError(null);
    setAnswer(null);
    setOpened(null);
    setOpenError(null);
    setFile(file);
    setName(file.name);
    try {
      const res = await fetch("/api/bundles/verify", { method: "POST", headers: { "content-type": "application/gzip" }, body: file });
      const body = (await res.json()) as Answer | { error: string };
      if (!res.ok || "error" in body) setError("error" in body ? body.error : `the server answered ${res.status}`);
      else setAnswer(body);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }
  async function open() {
    if (!file) return;
    setOpening(true);
    setOpenError(null);
    try {
      // the server verifies the bytes again: nothing is opened on the strength of the check above
      const res = await fetch(`/api/bundles/open?project=${encodeURIComponent(openIn.project)}`, {
        method: "POST",
        headers: { "content-type": "application/gzip" },
        body: file,
      });
      const body = (await res.json()) as Opened | { error: string };
      if (!res.ok || "error" in body) setOpenError("error" in body ? body.error : `the server answered ${res.status}`);
      else setOpened(body);
    } catch (e) {
      setOpenError((e as Error).message);
    } finally {
      setOpening(false);
    }
  }
  return (
    <div className="verify-view">
      <h1>Verify an audit bundle</h1>
      <p className="muted">
        Checks the manifest&apos;s signature, every member&apos;s SHA-256 and every journal&apos;s hash chain. The same check runs offline
        with <code>npm run -s retrace -- verify FILE --key KEY</code>; the public key is at <a href="/api/keys/audit">/api/keys/audit</a>.
      </p>
      <label className="verify-drop">
        <span>{busy ? "Checking…" : "Choose a bundle (.tar.gz)"}</span>
        <input
          type="file"
          accept=".gz,.tgz,application/gzip"
          aria-label="Bundle file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void check(f);
          }}
        />
      </label>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {answer ? (
        <section className={`verify-result ${answer.ok ? "good" : "bad"}`} aria-label="Result" data-ok={answer.ok}>
          <h2>{answer.ok ? `Verified: ${name}` : `Verification failed: ${name}`}</h2>
          {answer.ok && answer.manifest ? (
            <>
              <p>
                {answer.members} members, {answer.events} events, profile <b>{answer.manifest.profile}</b>, exported{" "}
                {answer.manifest.exportedAt} by {answer.manifest.exporter}.
              </p>
              <ul>
                {answer.manifest.runs.map((r) => (
                  <li key={r.id}>
                    <span className="mono">{r.id}</span>: {r.events} events, {r.findings} findings, {r.notes} notes
                  </li>
                ))}
              </ul>
              {openIn.may ? (
                <div className="verify-open">
                  {opened ? null : (
                    <button type="button" className="primary" disabled={opening} onClick={() => void open()}>
                      {opening
                        ? "Opening…"
                        : `Open as read-only run${answer.manifest.runs.length === 1 ? "" : "s"} in project ${openIn.project}`}
                    </button>
                  )}
                  <span className="muted">
                    Marked &quot;from bundle&quot;: no notes, no export, nothing appended; a live run of the same id is not touched.
                  </span>
                </div>
              ) : (
                <p className="muted">Opening a bundle as runs needs the reviewer role in project {openIn.project}.</p>
              )}
              {openError ? (
                <p className="form-error" role="alert">
                  {openError}
                </p>
              ) : null}
              {opened ? (
                <ul aria-label="Opened runs">
                  {opened.runs.map((r) => (
                    <li key={r.id}>
                      <Link href={`/runs/${encodeURIComponent(r.id)}`} prefetch={false}>
                        Open run {r.original}
                      </Link>{" "}
                      (from bundle, <span className="mono">{r.id}</span>
                      {r.already ? ", opened before" : ""}) ·{" "}
                      <Link href={`/runs/${encodeURIComponent(r.id)}/replay`} prefetch={false}>
                        replay
                      </Link>
                    </li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : (
            <ul className="verify-failures">
              {answer.failures.map((f, i) => (
                <li key={i}>
                  <span className="mono">{f.member}</span>
                  {f.seq !== undefined ? ` (seq ${f.seq})` : ""}: {f.message}
                </li>
              ))}
            </ul>
          )}
          <p className="muted">
            {answer.signedByThisDeployment
              ? `Signed by this deployment's key ${answer.deploymentKeyId}.`
              : `Signed by key ${answer.keyId ?? "?"}, not this deployment's (${answer.deploymentKeyId}): it comes from another deployment, or was re-signed.`}
          </p>
        </section>
      ) : null}
    </div>
  );
}
