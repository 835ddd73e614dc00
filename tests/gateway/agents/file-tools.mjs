// The two tools every test agent has: read_file and write_file, relative to the working
// directory or absolute (a recorded absolute path is mapped to the replay's directory).
import fs from "node:fs";
import path from "node:path";

export const TOOL_SCHEMAS = {
  read_file: {
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
  write_file: {
    description: "Write a file",
    parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" } }, required: ["path", "content"] },
  },
};

export const SYSTEM = process.env.AGENT_INSTRUCTIONS ?? "You are a careful file assistant.";
export const TASK = "Copy input.txt to out.txt in upper case.";
export const MODEL = process.env.AGENT_MODEL;
export const STREAM = process.env.AGENT_STREAM === "1";

export function runTool(name, args) {
  const file = path.resolve(args.path);
  if (name === "read_file") return fs.readFileSync(file, "utf8");
  if (name === "write_file") {
    fs.writeFileSync(file, args.content);
    return `wrote ${file}`;
  }
  throw new Error(`no tool ${name}`);
}
