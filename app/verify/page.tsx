import { VerifyView } from "@/components/evidence/verify-view";
import { page } from "@/lib/server/edge";

export const dynamic = "force-dynamic";

export const metadata = { title: "Verify a bundle · Retrace" };

/** Upload an audit bundle to check it (POST /api/bundles/verify does the work). */
export default page({ need: "runs.read", project: "any" }, async () => <VerifyView />);
