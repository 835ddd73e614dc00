import { NotFoundPage } from "@/components/ui/not-found-page";

/** A run that is not there, or not in a project of yours (the same answer): "No such run: ID". */
export default function RunNotFound() {
  return <NotFoundPage />;
}
