"use client";
/**
 * Whether the run's event times are real (RunDetail.timesRecorded). Sources without times
 * (SWE-agent, tau-bench) are imported with synthetic ones that only keep the order; every
 * view that would show a start, a duration or an offset reads this and shows order instead.
 * A context rather than props: the graph's nodes are rendered by xyflow.
 */
import { createContext, useContext } from "react";

const TimesRecorded = createContext(true);

export const TimesRecordedProvider = TimesRecorded.Provider;

export function useTimesRecorded(): boolean {
  return useContext(TimesRecorded);
}
