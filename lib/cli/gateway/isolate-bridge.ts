/**
 * The program `--isolate` runs first inside the sandbox (isolate.ts), as `node -e SOURCE
 * SOCKET PORT CMD…`: it listens on 127.0.0.1:PORT, the only address the sandbox has,
 * passes each connection to the gateway's unix socket, then runs the agent's command and
 * exits with its status (127 when it cannot be started, 128 + the signal that ended it).
 * Plain CommonJS in a string: it runs in a bare `node`, outside the CLI's bundle.
 */
export const BRIDGE_SOURCE = `"use strict";
const net = require("node:net");
const os = require("node:os");
const { spawn } = require("node:child_process");
const [socket, port, ...argv] = process.argv.slice(1);
const server = net.createServer((inside) => {
  const gateway = net.connect(socket);
  inside.pipe(gateway);
  gateway.pipe(inside);
  inside.on("error", () => gateway.destroy());
  gateway.on("error", () => inside.destroy());
});
server.on("error", (e) => {
  console.error("retrace --isolate: cannot listen on 127.0.0.1:" + port + " in the sandbox: " + e.message);
  process.exit(125);
});
server.listen(Number(port), "127.0.0.1", () => {
  const child = spawn(argv[0], argv.slice(1), { stdio: "inherit" });
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => child.kill(s));
  child.on("error", (e) => {
    console.error("retrace: cannot run " + argv[0] + ": " + e.message);
    process.exit(127);
  });
  child.on("exit", (code, signal) => process.exit(code !== null ? code : 128 + (os.constants.signals[signal] || 0)));
});
`;
