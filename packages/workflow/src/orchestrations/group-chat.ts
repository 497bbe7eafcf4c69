import { ConfigError, type JSONValue } from '@raf/core';
import * as z from 'zod';
import type { AgentLike } from '../agent/agent-like.js';
import { WorkflowAgent } from '../agent/workflow-agent.js';
import { WorkflowError } from '../errors.js';
import { agentExecutor, runAgentTurn } from '../executors/agent-executor.js';
import { functionExecutor } from '../executors/function-executor.js';
import { textOf } from '../executors/message-text.js';
import type { NodeContext } from '../graph/graph-types.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow, type WorkflowOptions } from '../workflow.js';
import { firstNamed, mentionsAny, requireAgents } from './orchestration-support.js';

export interface GroupChatOptions extends WorkflowOptions {
  /** Picks speakers with `selector: llmCoordinator` (the default when given). */
  coordinator?: AgentLike;
  /** Participant turns at most (default 10). */
  maxRounds?: number;
  selector?: 'roundRobin' | 'fixedOrder' | 'llmCoordinator';
  /** `fixedOrder`: participants by index or name, repeated. */
  speakerOrder?: readonly (number | string)[];
  /** The chat ends once a participant's message holds one of these. */
  terminationKeywords?: readonly string[];
}

interface Turn {
  speaker: string;
  text: string;
}

interface ChatState {
  history: Turn[];
  turns: number;
  cursor: number;
}

// The chat is read back from workflow state (a checkpoint on disk, a resumed run): parsed, never cast.
const turnSchema = z.object({ speaker: z.string(), text: z.string() });
const chatSchema = z.object({
  history: z.array(turnSchema),
  turns: z.number().int().nonnegative(),
  cursor: z.number().int().nonnegative(),
});

function parsed<T>(schema: z.ZodType<T>, value: unknown, what: string, nodeId: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const detail = result.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ');
  throw new WorkflowError('node-failed', `groupChat: ${what} is not valid (${detail})`, { nodeId });
}

/** The chat kept in `state.groupChat`, if any. */
function savedChat(context: NodeContext): ChatState | undefined {
  const value = context.state.get('groupChat');
  return value === undefined ? undefined : parsed(chatSchema, value, 'state.groupChat', context.nodeId);
}

function chatJSON(chat: ChatState): JSONValue {
  return {
    history: chat.history.map((t) => ({ speaker: t.speaker, text: t.text })),
    turns: chat.turns,
    cursor: chat.cursor,
  };
}

export function transcript(history: readonly Turn[]): string {
  return history.map((t) => `[${t.speaker}]\n${t.text.trim()}`).join('\n\n');
}

/**
 * A discussion: `group_chat_select` picks the next speaker (round robin, a fixed order, or the
 * coordinator agent), the speaker answers seeing the whole conversation, and the loop goes on
 * until `maxRounds` turns or a termination keyword. The answer is the last participant's message;
 * `state.groupChat.history` holds the conversation.
 */
export function groupChatWorkflow(
  participants: readonly AgentLike[],
  options: GroupChatOptions = {},
): Workflow {
  requireAgents('groupChat', participants, 1);
  const names = participants.map((p) => p.name);
  const maxRounds = options.maxRounds ?? 10;
  const selector = options.selector ?? (options.coordinator ? 'llmCoordinator' : 'roundRobin');
  if (selector === 'llmCoordinator' && !options.coordinator)
    throw new ConfigError('groupChat: selector llmCoordinator needs a coordinator agent');
  const order = (options.speakerOrder ?? []).map((entry) => {
    const index = typeof entry === 'number' ? entry : names.indexOf(entry);
    if (index < 0 || index >= names.length)
      throw new ConfigError(
        `groupChat: speakerOrder entry ${JSON.stringify(entry)} is not a participant (${names.join(', ')})`,
      );
    return index;
  });
  if (selector === 'fixedOrder' && order.length === 0)
    throw new ConfigError('groupChat: selector fixedOrder needs speakerOrder');
  const keywords = options.terminationKeywords ?? [];

  const choose = async (chat: ChatState, context: NodeContext): Promise<string> => {
    if (selector === 'roundRobin') return names[chat.cursor++ % names.length]!;
    if (selector === 'fixedOrder') return names[order[chat.cursor++ % order.length]!]!;
    const coordinator = options.coordinator as AgentLike;
    const roster = participants.map((p, i) => `${i}: ${p.name}${p.description ? ` — ${p.description}` : ''}`);
    const prompt = `Select the next speaker of this group discussion.\nParticipants:\n${roster.join('\n')}\n\nConversation so far:\n${transcript(chat.history)}\n\nReply with the name of the next speaker only.`;
    const turn = await runAgentTurn(coordinator, prompt, context);
    const text = 'text' in turn ? turn.text : '';
    const named = firstNamed(text, names);
    if (named) return named;
    const index = Number(/\d+/.exec(text)?.[0]);
    return names[Number.isInteger(index) && index < names.length ? index : chat.cursor++ % names.length]!;
  };

  const builder = new WorkflowBuilder()
    .addNode(
      'group_chat_select',
      functionExecutor(
        async (message, context) => {
          const saved = savedChat(context);
          const chat: ChatState = saved ?? {
            history: [{ speaker: 'user', text: textOf(message) }],
            turns: 0,
            cursor: 0,
          };
          if (saved) {
            chat.history.push(parsed(turnSchema, message, "a participant's message", context.nodeId));
            chat.turns++;
          }
          const said = chat.history.filter((t) => t.speaker !== 'user');
          const done =
            chat.turns >= maxRounds ||
            (keywords.length > 0 && said.some((t) => mentionsAny(t.text, keywords)));
          const next = done ? null : await choose(chat, context);
          context.state.set('groupChat', chatJSON(chat));
          return { next };
        },
        options.coordinator ? `select (${options.coordinator.name})` : `select (${selector})`,
      ),
    )
    .setStart('group_chat_select');
  participants.forEach((participant, i) => {
    const id = `group_chat_participant_${i}`;
    builder.addNode(
      id,
      agentExecutor(participant, {
        input: (_m, context) => {
          const chat = savedChat(context);
          return `Conversation so far:\n${transcript(chat?.history ?? [])}\n\nYou are ${participant.name}. Give your contribution.`;
        },
        output: (text) => ({ speaker: participant.name, text }),
      }),
      { label: participant.name },
    );
    builder.addLoopback(id, 'group_chat_select', { maxIterations: maxRounds });
  });
  builder
    .addNode(
      'group_chat_finish',
      functionExecutor((_m, context) => {
        const chat = savedChat(context);
        const last = (chat?.history ?? []).filter((t) => t.speaker !== 'user').at(-1);
        return last ? last.text : '';
      }, 'last message'),
      { output: true },
    )
    .addSwitch('group_chat_select', [
      ...names.map((name, i) => ({
        target: `group_chat_participant_${i}`,
        when: (m: JSONValue) => (m as { next: string | null }).next === name,
        label: name,
      })),
      { target: 'group_chat_finish', label: 'done' },
    ]);
  return new Workflow(builder.build(), { name: 'groupChat', ...options });
}

export function groupChatAgent(
  participants: readonly AgentLike[],
  options: GroupChatOptions = {},
): WorkflowAgent {
  return new WorkflowAgent(groupChatWorkflow(participants, options));
}
