#!/usr/bin/env node
import * as module from 'node:module';

// Node ≥ 22.1 keeps the compiled code of the modules raf loads (its own and the installed
// packages') in a cache folder, so the next `raf` starts faster (tsc does the same);
// `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Node 20 has no such cache. Enabled before
// anything else loads, hence `main` imported afterwards.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const { main } = await import('./main.js');

process.exitCode = await main(process.argv.slice(2));
