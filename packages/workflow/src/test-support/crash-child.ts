import { crashWorkflow } from './crash-graph.js';

// A process that runs the crash workflow and reports each finished superstep, to be killed (-9).
const [dir, runId] = process.argv.slice(2) as [string, string];
const workflow = crashWorkflow(dir);
await workflow.run(7, {
  runId,
  onEvent: (event) => {
    if (event.type === 'superstep-completed') process.stdout.write(`step ${event.step}\n`);
  },
}).result;
process.stdout.write('done\n');
