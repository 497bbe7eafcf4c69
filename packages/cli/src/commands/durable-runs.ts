import type { CliArgs } from '../args.js';
import { durableStore, loadDbosPackage } from '../durable/load-dbos.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { escapeJson, escapeLine } from '../render/escape.js';

type Control = import('@raf/dbos').DurableControl;
type RunInfo = import('@raf/dbos').DurableRunInfo;

async function withControl<T>(
  args: CliArgs,
  io: CliIO,
  what: string,
  use: (control: Control) => Promise<T>,
): Promise<T> {
  const store = durableStore(args, io, what);
  const dbos = await loadDbosPackage(what, io);
  const control = await dbos.DurableControl.open(store);
  try {
    return await use(control);
  } finally {
    await control.close();
  }
}

function printJson(io: CliIO, value: unknown): void {
  io.stdout.write(`${escapeJson(JSON.stringify(value))}\n`);
}

function printRun(io: CliIO, run: RunInfo, detailed: boolean): void {
  const agent = run.agent ? ` ${run.agent.name}` : '';
  io.stdout.write(
    `${escapeLine(run.runId)}  ${run.status.padEnd(9)}${escapeLine(agent)}  ${run.createdAt}\n`,
  );
  if (!detailed) return;
  if (run.sessionId) io.stdout.write(`  session: ${escapeLine(run.sessionId)}\n`);
  if (run.executor) io.stdout.write(`  executor: ${escapeLine(run.executor)}\n`);
  if (run.reason) io.stdout.write(`  finish: ${run.reason}\n`);
  if (run.error) io.stdout.write(`  error: ${escapeLine(run.error)}\n`);
  if (run.warning) io.stdout.write(`  warning: ${escapeLine(run.warning)}\n`);
  for (const request of run.requests ?? []) {
    // A sub-agent's request is named as a plain run names it: `<sub-agent>: <tool>`.
    const by = request.agentPath?.length ? `${request.agentPath.join(' › ')}: ` : '';
    io.stdout.write(
      `  waiting for approval: ${escapeLine(request.callId)} ${escapeLine(by + request.name)} ${escapeLine(JSON.stringify(request.arguments) ?? '')}\n`,
    );
  }
  for (const question of run.questions ?? [])
    io.stdout.write(
      `  waiting for an answer: ${escapeLine(question.nodeId)} ${escapeLine(question.prompt)}\n`,
    );
  for (const child of run.delegations ?? [])
    io.stdout.write(
      `  delegation ${escapeLine(child.callId ?? child.runId)} → ${escapeLine(child.subAgent ?? '?')}: ${child.status}${child.executor ? ` on ${escapeLine(child.executor)}` : ''}\n`,
    );
  if (run.text) io.stdout.write(`${escapeLine(run.text)}\n`);
}

/** `raf runs list|show ID|cancel ID`: durable runs from DBOS's workflow status (SPEC §14.2). */
export async function runsCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [action, runId] = args.files;
  if (action === 'list')
    return withControl(args, io, 'raf runs list', async (control) => {
      const runs = await control.list();
      if (args.json) printJson(io, runs);
      else for (const run of runs) printRun(io, run, false);
      return EXIT.ok;
    });
  if (action !== 'show' && action !== 'cancel')
    throw new CliError('raf runs takes list, show RUN_ID or cancel RUN_ID');
  if (!runId) throw new CliError(`raf runs ${action} needs a run id`);
  return withControl(args, io, `raf runs ${action}`, async (control) => {
    const run = action === 'show' ? await control.show(runId) : await control.cancel(runId);
    if (!run) throw new CliError(`no durable run ${runId}`, EXIT.config);
    if (args.json) printJson(io, run);
    else printRun(io, run, true);
    return EXIT.ok;
  });
}

/**
 * `raf approve RUN_ID --all|--none|--call ID…|--answer TEXT`: answers a parked run from any folder
 * (`--answer` a workflow's question, SPEC §14.4); one answer wins (exit 5 for the others). An
 * answer of the wrong kind, or naming a call twice, is refused (exit 2) before anything is
 * claimed; so is a run whose status event is unreadable. The claim and the message commit
 * together: an approve that failed (exit 2) or was killed claimed nothing, run it again.
 */
export async function approveCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [runId] = args.files;
  if (!runId)
    throw new CliError('raf approve needs a run id: raf approve RUN_ID --all|--none|--call ID|--answer TEXT');
  const answer = args.approveAll
    ? ('all' as const)
    : args.approveNone
      ? ('none' as const)
      : args.calls
        ? { approve: args.calls }
        : undefined;
  const answers = args.answers.length > 0 ? args.answers : undefined;
  if (!answer && !answers) throw new CliError('raf approve needs --all, --none, --call ID or --answer TEXT');
  return withControl(args, io, 'raf approve', async (control) => {
    const given = await control.answer(runId, { ...(answer && { answer }), ...(answers && { answers }) });
    if (args.json) printJson(io, { runId, ...given });
    else {
      for (const a of given.approvals)
        io.stdout.write(`${a.approved ? 'approved' : 'denied'} ${escapeLine(a.callId)}\n`);
      for (const a of given.answers)
        io.stdout.write(`answered ${escapeLine(a.nodeId)}: ${escapeLine(a.answer)}\n`);
    }
    return EXIT.ok;
  });
}
