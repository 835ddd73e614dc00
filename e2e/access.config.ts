import { defineConfig } from "@playwright/test";
import base from "../playwright.config";

/**
 * Only the access tests, without the suite's two servers (they start their own):
 * `playwright test -c e2e/access.config.ts`. The main config runs them too.
 */
export default defineConfig({ ...base, testDir: ".", testMatch: /access-.*\.spec\.ts$/, webServer: undefined, timeout: 120_000 });
