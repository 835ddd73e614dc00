"use client";
import { useCallback, useRef, useState } from "react";
import type { UploadAnswer } from "@/lib/view/api-types";

export interface UploadItem {
  file: string;
  bytes: number;
  /** 0..1 of the bytes sent. */
  progress: number;
  phase: "sending" | "storing" | "done" | "failed";
  status?: number;
  answer?: UploadAnswer;
  error?: string;
}

/**
 * Uploads journals and trace exports one after another with XMLHttpRequest, whose upload progress events
 * fetch() does not offer. `onStored` runs after each file the server answered.
 */
export function useUpload(onStored: () => void) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const busy = useRef(false);
  const queue = useRef<{ file: File; index: number }[]>([]);
  // items are appended and never reordered, so a running count gives each file its slot
  const count = useRef(0);

  const update = useCallback(
    (i: number, patch: Partial<UploadItem>) => setItems((xs) => xs.map((x, j) => (j === i ? { ...x, ...patch } : x))),
    [],
  );

  const sendOne = useCallback(
    (file: File, i: number) =>
      new Promise<void>((resolve) => {
        const xhr = new XMLHttpRequest();
        // /api/imports detects the format: journals, and trace exports (OTLP, Jaeger, Langfuse, …)
        xhr.open("POST", `/api/imports?name=${encodeURIComponent(file.name)}`);
        xhr.setRequestHeader("content-type", "application/octet-stream");
        xhr.upload.onprogress = (e) => {
          if (e.lengthComputable) update(i, { progress: e.loaded / e.total, phase: e.loaded >= e.total ? "storing" : "sending" });
        };
        xhr.upload.onload = () => update(i, { progress: 1, phase: "storing" });
        xhr.onload = () => {
          let answer: UploadAnswer | undefined;
          try {
            answer = JSON.parse(xhr.responseText) as UploadAnswer;
          } catch {
            answer = undefined;
          }
          const ok = xhr.status >= 200 && xhr.status < 300;
          update(i, {
            phase: ok ? "done" : "failed",
            status: xhr.status,
            answer,
            error: ok ? undefined : (answer?.error ?? `${xhr.status} ${xhr.statusText}`),
          });
          onStored();
          resolve();
        };
        xhr.onerror = () => {
          update(i, { phase: "failed", error: "the upload did not reach the server" });
          resolve();
        };
        xhr.send(file);
      }),
    [onStored, update],
  );

  const upload = useCallback(
    async (files: File[]) => {
      if (files.length === 0) return;
      setItems((xs) => [...xs, ...files.map((f) => ({ file: f.name, bytes: f.size, progress: 0, phase: "sending" as const }))]);
      for (const f of files) queue.current.push({ file: f, index: count.current++ });
      if (busy.current) return;
      busy.current = true;
      while (queue.current.length > 0) {
        const next = queue.current.shift()!;
        await sendOne(next.file, next.index);
      }
      busy.current = false;
    },
    [sendOne],
  );

  const clear = useCallback(() => {
    if (busy.current) return;
    count.current = 0;
    setItems([]);
  }, []);
  return { items, upload, clear };
}
