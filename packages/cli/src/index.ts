export type { CliArgs } from './args.js';
export { parseCliArgs, USAGE } from './args.js';
export type { CliIO } from './io.js';
export { CliError, EXIT, processIO } from './io.js';
export { main } from './main.js';
export { createMemoryIO } from './memory-io.js';
export { NdjsonRenderer } from './render/ndjson.js';
