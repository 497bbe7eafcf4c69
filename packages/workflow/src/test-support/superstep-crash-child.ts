import { join } from 'node:path';
import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { SqliteCheckpointStore } from '../checkpoint/sqlite/sqlite-checkpoint-store.js';
import { crashWorkflow } from './crash-graph.js';

// Runs the crash workflow on a file or SQLite store and says each node that finished (`ran ID`),
// to be killed (-9) while the fan-out's branches run side by side.
const [dir, runId, kind] = process.argv.slice(2) as [string, string, 'file' | 'sqlite'];
const store =
  kind === 'sqlite'
    ? await SqliteCheckpointStore.open({ path: join(dir, 'checkpoints.db') })
    : new FileCheckpointStore(dir);
await crashWorkflow(dir, { store, ran: (id) => process.stdout.write(`ran ${id}\n`) }).run(7, { runId })
  .result;
process.stdout.write('done\n');
