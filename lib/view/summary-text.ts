/**
 * The summary's strings (tool, model and step names, statuses, call ids) come from
 * payloads. The list, the graph and the timeline canvas show them as plain text, so their
 * invisible characters are made visible once, here, before anything draws them.
 */
import type { StrColumn, SummaryDto } from "../graph/summary";
import { visibleText } from "./text";

function reveal(c: StrColumn): StrColumn {
  if (!Array.isArray(c)) return { dict: c.dict.map((s) => visibleText(s)), idx: c.idx };
  // plain columns repeat a few values 100,000 times: check each distinct value once
  const seen = new Map<string, string>();
  return c.map((s) => {
    if (s === null) return null;
    let v = seen.get(s);
    if (v === undefined) {
      v = visibleText(s);
      seen.set(s, v);
    }
    return v;
  });
}

export function revealSummaryText(dto: SummaryDto): SummaryDto {
  return {
    ...dto,
    type: reveal(dto.type),
    step: reveal(dto.step),
    call: reveal(dto.call),
    name: reveal(dto.name),
    status: reveal(dto.status),
  };
}
