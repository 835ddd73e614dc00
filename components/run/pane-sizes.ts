"use client";
/**
 * The run page's pane sizes and which panes are collapsed, remembered across pages and
 * visits (zustand `persist` in localStorage). Sizes are null until the user drags: the
 * stylesheet's defaults (which narrow below 1280 px) apply until then. The store is
 * rehydrated after mount (`skipHydration`), so the server's HTML and the first render agree.
 */
import { create } from "zustand";
import { createJSONStorage, persist } from "zustand/middleware";

export type PaneName = "side" | "inspector" | "bottom";

/** px bounds a pane may be dragged to (the graph keeps its own minimum, see RunView). */
export const PANE_BOUNDS: Readonly<Record<PaneName, { min: number; max: number }>> = {
  side: { min: 160, max: 640 },
  inspector: { min: 280, max: 960 },
  bottom: { min: 100, max: 640 },
};

interface PaneSizes {
  size: Record<PaneName, number | null>;
  collapsed: Record<PaneName, boolean>;
  setSize(pane: PaneName, px: number | null): void;
  setCollapsed(pane: PaneName, collapsed: boolean): void;
  reset(): void;
}

const INITIAL = {
  size: { side: null, inspector: null, bottom: null },
  collapsed: { side: false, inspector: false, bottom: false },
} satisfies Pick<PaneSizes, "size" | "collapsed">;

const clampPane = (pane: PaneName, px: number) => Math.round(Math.min(PANE_BOUNDS[pane].max, Math.max(PANE_BOUNDS[pane].min, px)));

export const usePaneSizes = create<PaneSizes>()(
  persist(
    (set) => ({
      ...INITIAL,
      setSize: (pane, px) => set((s) => ({ size: { ...s.size, [pane]: px === null ? null : clampPane(pane, px) } })),
      setCollapsed: (pane, collapsed) => set((s) => ({ collapsed: { ...s.collapsed, [pane]: collapsed } })),
      reset: () => set(INITIAL),
    }),
    {
      name: "retrace.run-panes",
      version: 1,
      storage: createJSONStorage(() => localStorage),
      partialize: (s) => ({ size: s.size, collapsed: s.collapsed }),
      skipHydration: true,
    },
  ),
);
