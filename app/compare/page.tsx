import { CompareView } from "@/components/compare/compare-view";
import "@/components/compare/compare.css";

export const dynamic = "force-dynamic";

export const metadata = { title: "Compare runs · Retrace" };

/** Run-to-run diff: `/compare?a=RUN&b=RUN`. Everything is read through the runs API in the browser. */
export default function ComparePage() {
  return <CompareView />;
}
