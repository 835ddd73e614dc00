import { KIND_BADGE, KIND_LABEL, type EventKind } from "@/lib/graph/kind";

export function KindBadge({ kind }: { kind: EventKind }) {
  return (
    <span className={`kind-badge k-${kind}`} title={KIND_LABEL[kind]}>
      {KIND_BADGE[kind]}
    </span>
  );
}
