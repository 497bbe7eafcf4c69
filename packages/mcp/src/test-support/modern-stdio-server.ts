// A stdio server of the 2026-07-28 revision only (`serveStdio` with `legacy: 'reject'`: a 2025
// `initialize` gets -32022), on the official SDK v2. Run: node --import tsx modern-stdio-server.ts
// Env: MODERN_HOSTILE=1 adds the hostile tools (see modern-tools.ts).
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { modernServer } from './modern-tools.js';

const state = { note: 'first', reads: 0 };
serveStdio(() => modernServer(state, { hostile: process.env.MODERN_HOSTILE === '1' }), { legacy: 'reject' });
