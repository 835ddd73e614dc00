import { create } from "zustand";

/**
 * The resume panel's view state (components/live/resume-panel.tsx): open or not, and the
 * checkpoint asked for (null: the last durable one, as the server chooses). The inspector
 * of a checkpoint opens it from there.
 */
interface ResumeViewState {
  run: string | null;
  open: boolean;
  checkpoint: string | null;
  setOpen(run: string, open: boolean): void;
  choose(run: string, checkpoint: string | null): void;
}

export const useResumeView = create<ResumeViewState>()((set) => ({
  run: null,
  open: false,
  checkpoint: null,
  setOpen: (run, open) => set((s) => (s.run === run ? { open } : { run, open, checkpoint: null })),
  choose: (run, checkpoint) => set({ run, checkpoint, open: true }),
}));
