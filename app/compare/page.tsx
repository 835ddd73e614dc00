import { CompareView } from "@/components/compare/compare-view";
import { page } from "@/lib/server/edge";
import "@/components/compare/compare.css";

export const dynamic = "force-dynamic";

export const metadata = { title: "Compare runs · Retrace" };

/** Run-to-run diff: `/compare?a=RUN&b=RUN`. Both runs are read through the runs API in the browser, which authorizes each. */
export default page({ need: "runs.read", project: "any" }, async () => <CompareView />);
