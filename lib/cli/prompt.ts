/**
 * A password from the terminal (not echoed) or, when stdin is not a terminal, the first
 * line of stdin: `echo "$PASS" | retrace user add …` for scripts and CI.
 */
import { createInterface } from "node:readline";

export async function readPassword(question: string): Promise<string> {
  if (!process.stdin.isTTY) {
    let text = "";
    for await (const chunk of process.stdin) {
      text += String(chunk);
      if (text.includes("\n")) break;
    }
    return text.split(/\r?\n/)[0] ?? "";
  }
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
    const out = rl as unknown as { _writeToOutput: (s: string) => void };
    let asked = false;
    out._writeToOutput = (s: string) => {
      // echo the question, never the typed characters
      if (!asked) process.stdout.write(s);
    };
    rl.question(question, (answer) => {
      process.stdout.write("\n");
      rl.close();
      resolve(answer);
    });
    asked = true;
  });
}
