import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { AgentResponseUpdate, FinishUpdate } from '@raf/core';
import type { CliArgs } from '../args.js';
import { attachedInput } from '../attachments.js';
import { answerApprovals, runInputAnswers, sayWhatWaits } from '../commands/approval-answers.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { warnOnStderr } from '../load-agent.js';
import { escapeJson, escapeLine } from '../render/escape.js';
import { HumanRenderer } from '../render/human.js';
import { NdjsonRenderer } from '../render/ndjson.js';
import { askLine, readAll } from '../terminal.js';
import { durableStore, loadDbosPackage } from './load-dbos.js';
import { agentFlags, buildDurableAgent } from './rebuild-agent.js';

/** The finish of a pause, as a plain run's: a workflow's question ends like `raf run`'s. */
function pausedFinish(asks: boolean): FinishUpdate {
  return asks
    ? { type: 'finish', reason: 'other', rawReason: 'awaitingInput' }
    : { type: 'finish', reason: 'awaitingApproval' };
}

/** How a pause nobody answers here is answered later, from any folder. */
function howToAnswer(runId: string, approvals: boolean, questions: number): string {
  const flags = [
    ...(questions > 0 ? [Array(questions).fill('--answer "…"').join(' ')] : []),
    ...(approvals ? ['--all|--none|--call ID'] : []),
  ].join(' ');
  return `paused for ${questions > 0 ? 'input' : 'approval'}; answer from any folder with: raf approve ${runId} ${flags} (a raf worker goes on with it)`;
}

/**
 * `raf run --durable`: the turn is a DBOS workflow on the Postgres store (SPEC §14.2). The run id
 * is printed first; this process runs it, and if it dies a `raf worker` goes on from the last
 * finished step. A pause answered here (`--approve all|none` or a terminal prompt for approvals,
 * a terminal prompt for a workflow's question) goes on here; otherwise the process exits 3 and the
 * parked run waits for `raf approve` (`--answer TEXT` for a question).
 */
export async function runDurable(file: string, args: CliArgs, io: CliIO): Promise<number> {
  const store = durableStore(args, io, 'raf run --durable');
  const dbos = await loadDbosPackage('raf run --durable', io);
  let input = args.input;
  if (input === undefined) {
    if (io.stdin.isTTY) throw new CliError('raf run needs input: -i "…" or text on stdin');
    input = (await readAll(io.stdin)).trim();
  }
  if (!input.trim() && !args.attach) throw new CliError('raf run got no input: -i "…" or text on stdin');
  const path = resolve(io.cwd, file);
  const agent = await buildDurableAgent(file, args, io, warnOnStderr(file, io));
  if (args.attach && !('chatClient' in agent))
    throw new CliError(
      `raf run: --attach goes to chat agents; ${file} is a workflow, which takes text input`,
    );
  // Read before the run starts: a missing or unreadable attachment is a usage error, exit 2. The
  // parts are recorded with the run (base64), so a worker that takes it over sends them too.
  const message = args.attach ? await attachedInput(input, args.attach, io.cwd) : input;
  const runId = randomUUID();
  const sessionId = args.session ?? runId;
  const durable = await dbos.durableAgent(agent, {
    store,
    ref: { name: agent.name, file: path, cwd: io.cwd, overrides: { flags: agentFlags(args, io) } },
  });
  const control = await dbos.DurableControl.open(store);
  const json = new NdjsonRenderer((line) => io.stdout.write(line));
  const human = new HumanRenderer(io.stdout, io.stderr);
  if (args.json) io.stdout.write(`${escapeJson(JSON.stringify({ type: 'run-started', runId }))}\n`);
  else io.stdout.write(`run ${runId}\n`);
  // `--answer` answers the questions of the run while it goes on here (SPEC §14.4).
  const onInputRequest = runInputAnswers(args, io, human);
  let finish: FinishUpdate | undefined;
  const onUpdate = (update: AgentResponseUpdate) => {
    if (update.type === 'finish') {
      finish = update;
      if (!args.json) human.render(update);
      return;
    }
    if (args.json) json.render(update, sessionId);
    else human.render(update);
  };
  // Ctrl-C detaches: the run is durable and goes on in a worker.
  let detach: (() => void) | undefined;
  const interrupted = new Promise<'interrupted'>((done) => {
    detach = io.onInterrupt(() => done('interrupted'));
  });
  const always = new Set<string>();
  try {
    let stop = await Promise.race([
      durable.run(message, { runId, sessionId, onUpdate, onInputRequest }),
      interrupted,
    ]);
    for (;;) {
      if (stop === 'interrupted') {
        io.stderr.write(`interrupted; run ${runId} goes on in a worker (raf runs show ${runId})\n`);
        if (args.json) json.render({ type: 'finish', reason: 'cancelled' }, sessionId);
        return EXIT.interrupted;
      }
      if (stop.status === 'ended') {
        if (args.json) json.render(finish ?? { type: 'finish', reason: stop.reason }, sessionId);
        if (stop.reason === 'cancelled') return EXIT.interrupted;
        return stop.error || stop.reason === 'other' ? EXIT.model : EXIT.ok;
      }
      const questions = stop.questions ?? [];
      const unanswered =
        (stop.requests.length > 0 && args.approve === 'ask' && !io.stdin.isTTY) ||
        (questions.length > 0 && !io.stdin.isTTY);
      if (unanswered) {
        sayWhatWaits(stop.requests, io);
        for (const q of questions) io.stderr.write(`waiting for an answer: ${escapeLine(q.prompt)}\n`);
        io.stderr.write(`${howToAnswer(runId, stop.requests.length > 0, questions.length)}\n`);
        if (args.json) {
          // A workflow's paused calls were made inside its nodes: the stream has not shown them yet.
          if (stop.questions) for (const r of stop.requests) json.render(r, sessionId);
          json.render(finish ?? pausedFinish(questions.length > 0), sessionId);
        }
        return EXIT.paused;
      }
      if (finish) json.continueAfter(finish);
      // A workflow's questions are asked on the terminal, one line each, after its approvals.
      const responses =
        stop.requests.length > 0 ? await answerApprovals(stop.requests, args, io, always) : undefined;
      const answers: string[] = [];
      for (const q of questions) answers.push(await askLine(io, `${q.prompt} `));
      // A claim like any other answer: a concurrent `raf approve` may have won (exit 5).
      await control.answer(runId, {
        ...(responses && { answer: { responses } }),
        ...(questions.length > 0 && { answers }),
      });
      finish = undefined;
      stop = await Promise.race([durable.wait(runId, onUpdate, onInputRequest), interrupted]);
    }
  } finally {
    detach?.();
    await control.close();
    // The runs parked here are released at once: a worker holds them from now on.
    await durable.close();
  }
}
