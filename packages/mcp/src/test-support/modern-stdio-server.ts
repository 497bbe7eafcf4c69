// A stdio server of the 2026-07-28 revision only (`serveStdio` with `legacy: 'reject'`: a 2025
// `initialize` gets -32022), on the official SDK v2. Run: node --import tsx modern-stdio-server.ts
// Env: MODERN_HOSTILE=1 adds the hostile tools (see modern-tools.ts); MODERN_NOTE_TICKS=N changes
// the note every 300 ms, N times, saying so (`notifications/resources/updated`, which only a
// `subscriptions/listen` stream carries on this revision).
import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { modernServer } from './modern-tools.js';

const state = { note: 'first', reads: 0 };
const instances = new Set<McpServer>();
serveStdio(
  () => {
    const server = modernServer(state, { hostile: process.env.MODERN_HOSTILE === '1' });
    instances.add(server);
    return server;
  },
  { legacy: 'reject' },
);

let ticks = Number(process.env.MODERN_NOTE_TICKS ?? 0);
if (ticks > 0) {
  const timer = setInterval(() => {
    state.note = `tick ${ticks}`;
    for (const server of instances)
      void server.server.sendResourceUpdated({ uri: 'test://note' }).catch(() => undefined);
    if (--ticks === 0) clearInterval(timer);
  }, 300);
}
