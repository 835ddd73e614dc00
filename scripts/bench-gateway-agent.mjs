// The agent scripts/bench-gateway.ts records and replays: N requests to the Anthropic
// Messages API at ANTHROPIC_BASE_URL, one after another, every other one streamed, each
// read to its end. Writes its own wall time, ms, to the file given as its second argument.
//   node scripts/bench-gateway-agent.mjs N OUT_FILE
/* global fetch */
import fs from "node:fs";

const [count, outFile] = process.argv.slice(2);
const base = process.env.ANTHROPIC_BASE_URL;
if (!base || !outFile) {
  console.error("usage: ANTHROPIC_BASE_URL=… node scripts/bench-gateway-agent.mjs N OUT_FILE");
  process.exit(2);
}
const t0 = process.hrtime.bigint();
for (let i = 0; i < Number(count); i++) {
  const res = await fetch(`${base}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-bench", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: "claude-fake-1",
      max_tokens: 256,
      stream: i % 2 === 1,
      messages: [{ role: "user", content: "Say something short." }],
    }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) {
    console.error(`request ${i}: HTTP ${res.status}`);
    process.exit(1);
  }
}
fs.writeFileSync(outFile, String(Number(process.hrtime.bigint() - t0) / 1e6));
