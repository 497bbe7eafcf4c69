#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { main } from './main.js';

// undici parses HTTP with llhttp in WebAssembly. After a few answers V8 starts optimising the
// parser on a background thread (about 100 ms of compilation), and a process cannot exit before
// that job ends: a one-turn `raf run` spent a quarter of its wall time waiting at exit for it
// (`pnpm bench --only cold-start`: `runToExit`). A larger tiering budget keeps a short run on the
// baseline compiler; a long session still reaches the optimised parser. Set here, after the
// modules above have loaded, because changing a V8 flag makes Node's cached compilation of its
// built-in modules unusable for every built-in loaded afterwards (~30 ms if set first), and
// before the first WebAssembly module is compiled (at the first HTTP request).
setFlagsFromString('--wasm-tiering-budget=180000000');

process.exitCode = await main(process.argv.slice(2));
