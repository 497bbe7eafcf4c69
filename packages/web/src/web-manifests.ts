import { createToolManifest, type ToolManifest } from '@raf/core';

// Read-only network tools: they run where they are called, in a sub-agent's worker too (SPEC §7).
// `http_request` has none here: it is named only, and its manifest is the default a tool gets.
const local = { kind: 'builtin', supportedInWorker: true, workerRoutingHint: 'local' } as const;

/** The manifests of `web_search` and `web_fetch`: the tools carry them, `raf tools` lists them. */
export const WEB_TOOL_MANIFESTS: Readonly<Record<'web_search' | 'web_fetch', ToolManifest>> = Object.freeze({
  web_search: createToolManifest(local),
  web_fetch: createToolManifest(local),
});
