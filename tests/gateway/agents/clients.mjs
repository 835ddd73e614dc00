// The agents below load their SDKs from the test-only client package (packages/test-clients),
// not from the app's dependencies.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(path.resolve(import.meta.dirname, "../../../packages/test-clients/package.json"));

/** a module of packages/test-clients */
export const importClient = (name) => import(pathToFileURL(require.resolve(name)).href);
