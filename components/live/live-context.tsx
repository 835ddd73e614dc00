"use client";
import { createContext, useContext } from "react";

/**
 * What the run page's server decided this viewer may do live (lib/server/live): whether to
 * offer live actions at all, and whether confirming takes a password (a signed-in user) or
 * the operation's name (open mode). The server decides again on every action.
 */
export interface LivePowers {
  offer: boolean;
  signedIn: boolean;
  runId: string;
}

const LiveContext = createContext<LivePowers>({ offer: false, signedIn: true, runId: "" });

export const LiveProvider = LiveContext.Provider;
export const useLivePowers = () => useContext(LiveContext);
