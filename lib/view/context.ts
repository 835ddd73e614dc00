/** A context event's instructions against the policy's required ones. */

interface InstructionRow {
  id: string;
  required: boolean;
  included: boolean;
}

export function instructionRows(included: unknown, required: unknown): InstructionRow[] {
  const inc = Array.isArray(included) ? included.filter((x): x is string => typeof x === "string") : [];
  const req = Array.isArray(required) ? required.filter((x): x is string => typeof x === "string") : [];
  const rows: InstructionRow[] = req.map((id) => ({ id, required: true, included: inc.includes(id) }));
  for (const id of inc) if (!req.includes(id)) rows.push({ id, required: false, included: true });
  return rows;
}
