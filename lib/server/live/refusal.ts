import "server-only";
/**
 * A live action's refusal (docs/live-actions.md): the step it stopped at and why, and the
 * plan errors of lib/live mapped to one.
 */
import { PlanError } from "../../live/plan";
import { AccessError } from "../access/accounts";

/** A live action refused at one step; the message starts with the step's name. */
export class LiveRefusal extends AccessError {
  constructor(
    readonly step: string,
    message: string,
    status: ConstructorParameters<typeof AccessError>[1],
  ) {
    super(`[${step}] ${message}`, status);
  }
}

export function planned<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PlanError) throw new LiveRefusal("event", e.message, e.status === 404 ? 404 : e.status === 409 ? 409 : 400);
    throw e;
  }
}
