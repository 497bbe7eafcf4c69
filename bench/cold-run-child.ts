// One agent run in a fresh process: `node <compiled child> <contender> <baseURL>` imports what the
// contender needs, builds its agent, runs it once (4 tool rounds against the mock server) and
// exits. `cold-run.ts` compiles this file to plain JavaScript first, so no TypeScript loader is
// timed; the contenders' packages are loaded as users load them (built `dist`, no source condition).
import { loopOperation } from './agent-loop.js';

const [contender, baseURL] = process.argv.slice(2);
if (!contender || !baseURL) throw new Error('usage: cold-run-child <contender> <baseURL>');
const run = await loopOperation(baseURL, contender);
await run();
// Every contender leaves keep-alive sockets open: the run is over, the process ends here.
process.exit(0);
