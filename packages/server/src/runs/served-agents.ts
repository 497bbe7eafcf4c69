import type { AgentResponseUpdate, ApprovalResponse, ChatMessage, SessionJournal } from '@raf/core';
import type { AgentSession, InputRequestHandler } from '@raf/framework';
import { HttpError } from '../http/http-error.js';

/** What the server runs: a `ChatClientAgent` or a `WorkflowAgent` (both fit). */
export interface RunnableAgent {
  run(
    /** Text, or a user message with content parts (`/v1` start-run with parts). */
    input: string | ChatMessage | undefined,
    options: {
      session: AgentSession;
      signal: AbortSignal;
      approvals?: ApprovalResponse[];
      journal?: SessionJournal;
      /** Who answers the questions its tools ask (an MCP elicitation): the API's answers. */
      onInputRequest?: InputRequestHandler;
    },
  ): AsyncIterable<AgentResponseUpdate>;
}

/** One agent the server serves, under a URL-safe name (`/v1/agents/{name}`). */
export interface ServedAgent {
  readonly name: string;
  readonly description?: string;
  /** The file it was loaded from (shown by `GET /v1/agents`, never read by the server). */
  readonly file?: string;
  readonly kind?: 'agent' | 'workflow';
  /** The agent to run (built once by the caller and reused, or built per run: the caller's choice). */
  agent(signal: AbortSignal): Promise<RunnableAgent>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The agents of one server, by name. */
export class ServedAgents {
  private readonly byName = new Map<string, ServedAgent>();

  constructor(agents: readonly ServedAgent[]) {
    for (const agent of agents) {
      if (!NAME.test(agent.name))
        throw new HttpError(500, 'bad_agent_name', `agent name "${agent.name}" is not URL-safe`);
      if (this.byName.has(agent.name))
        throw new HttpError(500, 'duplicate_agent', `two agents are named "${agent.name}"`);
      this.byName.set(agent.name, agent);
    }
  }

  list(): ServedAgent[] {
    return [...this.byName.values()];
  }

  /** The agent, or a 404 naming it. */
  get(name: string): ServedAgent {
    const agent = this.byName.get(name);
    if (!agent) throw new HttpError(404, 'not_found', `agent ${name} not found`);
    return agent;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }
}
