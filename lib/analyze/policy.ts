/** The run's policy as `run.start` states it: defined with the run semantics (lib/semantics). */
export { readPolicy } from "../semantics";
