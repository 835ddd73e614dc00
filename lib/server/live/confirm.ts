import "server-only";
/**
 * The fresh confirmation a live action needs (docs/live-actions.md): a reason, the
 * password again for a user (throttled like a login), the operation's name where asked.
 */
import type { Principal } from "../../access/roles";
import { findUserByName } from "../access/accounts";
import { burnVerify, verifyPassword } from "../access/password";
import { loginAllowed, recordFailure, recordSuccess } from "../access/throttle";
import type { Db } from "../db";
import { LiveRefusal } from "./refusal";

const CONFIRM_ADDRESS = "live-confirmation";

export interface Confirmation {
  reason: string;
  password?: string;
  operationName?: string;
}

/** The fresh confirmation: a reason, and the password again (a user) or the operation's name (open mode). */
export async function confirm(db: Db, principal: Principal, c: Confirmation, operation: string, needsName: boolean): Promise<void> {
  if (c.reason.trim().length < 3) throw new LiveRefusal("reason", "say why (a reason of at least 3 characters); it goes into the log", 400);
  if (principal.kind === "user") {
    if (!c.password) throw new LiveRefusal("confirmation", "re-enter your password to confirm this live action", 401);
    if (!(await loginAllowed(db, principal.name, CONFIRM_ADDRESS))) {
      await burnVerify(c.password);
      throw new LiveRefusal("confirmation", "too many wrong passwords; wait 15 minutes", 429);
    }
    const user = await findUserByName(db, principal.name);
    const good =
      user && user.disabledAt === null ? await verifyPassword(c.password, user.passwordHash) : (await burnVerify(c.password), false);
    if (!good) {
      await recordFailure(db, principal.name, CONFIRM_ADDRESS);
      throw new LiveRefusal("confirmation", "the password is not right; nothing was sent", 401);
    }
    await recordSuccess(db, principal.name);
  }
  if ((needsName || principal.kind === "open") && c.operationName?.trim() !== operation)
    throw new LiveRefusal("operation name", `type the operation's name (${operation}) to confirm`, 400);
}
