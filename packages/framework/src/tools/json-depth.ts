/**
 * How deep tool arguments may nest. A hostile model's `{"a":{"a":…}}` five thousand levels deep
 * parses, but every later `JSON.stringify` (the `--json` line, `raf serve`'s stream and store, a
 * server's request) overflows the stack and ended the process. Real arguments nest a few levels.
 */
export const MAX_ARGUMENT_DEPTH = 100;
