/**
 * The alignment worker: `alignRuns` runs here, off the main thread, so aligning two long,
 * very different runs never freezes the compare page. Comlink exposes `align`.
 */
import { expose } from "comlink";
import { alignRuns, type Alignment, type CompareEvent } from "@/lib/compare";

const api = {
  align(a: CompareEvent[], b: CompareEvent[]): Alignment {
    return alignRuns(a, b);
  },
};

export type AlignWorkerApi = typeof api;

expose(api);
