import { existsSync } from "node:fs";
import { chromium, type BrowserContext } from "playwright-core";

/** Debian's Chromium; the browser tests are skipped (saying why) where it is not installed. */
export const CHROMIUM = "/usr/bin/chromium";
export const chromiumMissing = !existsSync(CHROMIUM);

/**
 * Headless Chromium with a fresh profile in `profileDir` (playwright passes it as
 * --user-data-dir), nothing fetched behind the page's back (no updates, sync or QUIC).
 */
export function launchChromium(
  profileDir: string,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    ...options,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
