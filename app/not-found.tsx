import { NotFoundPage } from "@/components/ui/not-found-page";

export const metadata = { title: "Not found · Retrace" };

/** Any address with no page: Retrace's own 404, with the runs search. */
export default function NotFound() {
  return <NotFoundPage />;
}
