import { ConfigError, type JSONValue } from '@raf/core';
import * as z from 'zod';
import type { AgentLike } from '../agent/agent-like.js';
import { WorkflowAgent } from '../agent/workflow-agent.js';
import { WorkflowError } from '../errors.js';
import { agentExecutor } from '../executors/agent-executor.js';
import { functionExecutor } from '../executors/function-executor.js';
import { textOf } from '../executors/message-text.js';
import type { NodeContext } from '../graph/graph-types.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow, type WorkflowOptions } from '../workflow.js';
import { requireAgents } from './orchestration-support.js';

export interface VoteOptions extends WorkflowOptions {
  aggregator?: 'majority' | 'unanimous' | 'weighted';
  /** `weighted`: one weight per voter, in voter order. */
  weights?: readonly number[];
  /** Rounds at most; voters see the previous round's votes when there is no decision (default 1). */
  votingRounds?: number;
}

/** A vote is the answer's first line, without surrounding quotes, markup or final punctuation. */
export function ballotOf(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line
    .trim()
    .replace(/^[*_"'`\s]+|[*_"'`\s]+$/g, '')
    .replace(/[.!。！]+$/u, '')
    .trim();
}

interface Round {
  votes: Record<string, string>;
  tally: Record<string, number>;
}

// The rounds are read back from workflow state (a checkpoint, a resumed run): parsed, never cast.
const roundsSchema = z.array(
  z.object({ votes: z.record(z.string(), z.string()), tally: z.record(z.string(), z.number()) }),
);

function savedRounds(context: NodeContext): Round[] {
  const value = context.state.get('vote');
  if (value === undefined) return [];
  const parsed = roundsSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ');
  throw new WorkflowError('node-failed', `vote: state.vote is not valid (${detail})`, {
    nodeId: context.nodeId,
  });
}

/**
 * Every voter answers the same question in parallel; the aggregator decides: `majority` (the most
 * votes; a tie is no decision), `unanimous` (all the same, or the run fails after the last round),
 * `weighted` (votes times weights). Without a decision and with rounds left, the voters vote again
 * seeing the tally. The answer is the winning vote; `state.vote` holds every round.
 */
export function voteWorkflow(voters: readonly AgentLike[], options: VoteOptions = {}): Workflow {
  requireAgents('vote', voters, 1);
  const aggregator = options.aggregator ?? 'majority';
  const weights = options.weights ?? [];
  if (aggregator === 'weighted' && weights.length !== voters.length)
    throw new ConfigError(
      `vote: weighted needs one weight per voter (${voters.length} voters, ${weights.length} weights)`,
    );
  const rounds = options.votingRounds ?? 1;
  const names = voters.map((v) => v.name);
  const ids = voters.map((_, i) => `vote_voter_${i}`);

  const builder = new WorkflowBuilder()
    .addNode(
      'vote_source',
      functionExecutor((message, context) => {
        if (!context.state.has('question')) context.state.set('question', textOf(message));
        return textOf(context.state.get('question'));
      }, 'question'),
    )
    .setStart('vote_source');
  voters.forEach((voter, i) => {
    builder.addNode(
      ids[i]!,
      agentExecutor(voter, {
        input: (question, context) => {
          const previous = savedRounds(context).at(-1);
          if (!previous) return textOf(question);
          const votes = Object.entries(previous.votes)
            .map(([n, v]) => `${n}: ${v}`)
            .join('\n');
          return `${textOf(question)}\n\nThe last round had no decision. Votes:\n${votes}\n\nVote again: answer with your choice on the first line.`;
        },
      }),
      { label: voter.name },
    );
  });
  builder.addFanOut('vote_source', ids).addNode(
    'vote_aggregate',
    functionExecutor((answers, context) => {
      const list = answers as JSONValue[];
      const history = savedRounds(context);
      const votes: Record<string, string> = {};
      const tally = new Map<string, { label: string; score: number; first: number }>();
      names.forEach((name, i) => {
        const ballot = ballotOf(textOf(list[i]));
        votes[name] = ballot;
        const key = ballot.toLowerCase();
        const entry = tally.get(key) ?? { label: ballot, score: 0, first: i };
        entry.score += aggregator === 'weighted' ? (weights[i] ?? 0) : 1;
        tally.set(key, entry);
      });
      history.push({ votes, tally: Object.fromEntries([...tally.values()].map((t) => [t.label, t.score])) });
      context.state.set(
        'vote',
        history.map((r) => ({ votes: { ...r.votes }, tally: { ...r.tally } })),
      );
      const ranked = [...tally.values()].sort((a, b) => b.score - a.score || a.first - b.first);
      const top = ranked[0]!;
      const decided = aggregator === 'unanimous' ? ranked.length === 1 : ranked[1]?.score !== top.score;
      const last = history.length >= rounds;
      if (decided || (last && aggregator !== 'unanimous')) return { decided: true, winner: top.label };
      if (last)
        throw new WorkflowError(
          'unanimity',
          `the votes are not unanimous after ${rounds} round${rounds > 1 ? 's' : ''}: ${Object.entries(votes)
            .map(([n, v]) => `${n}: ${v}`)
            .join('; ')}`,
          { nodeId: context.nodeId },
        );
      return { decided: false };
    }, aggregator),
  );
  builder
    .addFanIn(ids, 'vote_aggregate')
    .addNode(
      'vote_result',
      functionExecutor((m) => (m as { winner: string }).winner, 'winner'),
      { output: true },
    )
    .addEdge('vote_aggregate', 'vote_result', { when: (m) => (m as { decided: boolean }).decided });
  if (rounds > 1)
    builder.addLoopback('vote_aggregate', 'vote_source', {
      maxIterations: rounds - 1,
      when: (m) => !(m as { decided: boolean }).decided,
    });
  return new Workflow(builder.build(), { name: 'vote', ...options });
}

export function voteAgent(voters: readonly AgentLike[], options: VoteOptions = {}): WorkflowAgent {
  return new WorkflowAgent(voteWorkflow(voters, options));
}
