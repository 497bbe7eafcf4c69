import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

/** The Debian `chromium` package's binary: the studio's browser tests never download a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Whether the browser tests can run here (`it.runIf(hasChromium())`). */
export function hasChromium(path = CHROMIUM_PATH): boolean {
  return existsSync(path);
}

export interface StudioBrowser {
  /** A context on the fresh profile: `context.newPage()`. */
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless Chromium through `playwright-core` with a fresh profile and nothing that calls home
 * (tests reach only 127.0.0.1). `close()` also removes the profile.
 */
export async function launchChromium(path = CHROMIUM_PATH): Promise<StudioBrowser> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'raf-studio-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: path,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
