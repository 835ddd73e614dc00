"use server";
import { cookies } from "next/headers";
import { z } from "zod";
import { PROJECT_ID } from "@/lib/access/roles";
import { action, PROJECT_COOKIE } from "@/lib/server/edge";

/** The current project (a view preference): only one the user belongs to. */
export const chooseProject = action(
  { need: "runs.read", projectOf: (i) => i.project },
  z.object({ project: z.string().regex(PROJECT_ID) }),
  async (_ctx, input) => {
    (await cookies()).set(PROJECT_COOKIE, input.project, { httpOnly: true, sameSite: "lax", path: "/" });
    return { project: input.project };
  },
);
