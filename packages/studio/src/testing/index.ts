export { buildStudioIfMissing } from './build.js';
export type { StudioBrowser } from './chromium.js';
export { CHROMIUM_PATH, hasChromium, launchChromium } from './chromium.js';
