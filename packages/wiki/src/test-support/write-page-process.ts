// A second process writing a wiki page: `write-page-process.ts ROOT PAGE CONTENT [EXPECTED_HASH]`.
// It opens the wiki, waits for "go" on stdin (so two processes start their write together),
// writes, and prints the result as one JSON line.
import { Wiki } from '../wiki/wiki.js';

const [root, page, content, expectedHash] = process.argv.slice(2) as [string, string, string, string?];
const wiki = await Wiki.open(root);
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const result = await wiki.write(
  { page, content, ...(expectedHash ? { expectedHash } : {}) },
  AbortSignal.timeout(30_000),
);
process.stdout.write(`${JSON.stringify({ ok: result.ok })}\n`);
await wiki.close();
