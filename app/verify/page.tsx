import { VerifyView } from "@/components/evidence/verify-view";
import { DEFAULT_PROJECT } from "@/lib/access/roles";
import { currentProjectFor, mayOnProject, page } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

export const metadata = { title: "Verify a bundle · Retrace" };

/**
 * Upload an audit bundle to check it (POST /api/bundles/verify does the work); a reviewer
 * may then open its runs read-only in the current project (POST /api/bundles/open).
 */
export default page({ need: "runs.read", project: "any" }, async ({ principal }) => {
  const project = (await currentProjectFor(principal)) ?? DEFAULT_PROJECT;
  return <VerifyView openIn={{ project, may: mayOnProject(principal, "audit.export", project) }} />;
});
