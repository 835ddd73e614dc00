/** Stop conditions are part of the run semantics (lib/semantics/condition.ts). */
export { evaluateCondition } from "../semantics";
