import { join } from 'node:path';
import {
  ConfigError,
  type ContextResult,
  getErrorMessage,
  type IChatClient,
  type IContextProvider,
  type InvokedContext,
  type ISession,
  type ITool,
  type JSONObject,
} from '@raf/core';
import type { AgentSkill } from '../skills/agent-skill.js';
import { parseSkillMarkdown } from '../skills/agent-skill.js';
import { createLoadSkillTool, createReadSkillResourceTool } from '../skills/skill-tools.js';
import { readBundleText } from './bundle-files.js';
import { REFERENCE_PAGES } from './bundle-layout.js';
import {
  type ConsolidationOutcome,
  ConsolidationQueue,
  type ConsolidationStats,
} from './consolidation-queue.js';
import { runConsolidation } from './curator.js';
import { MemoryBundle } from './memory-bundle.js';
import { type MemoryLanguage, memoryNotice } from './memory-notice.js';
import { createMemoryRecallTool, createMemorySaveTool } from './memory-tools.js';
import { recallEngineMissing } from './recall-index.js';

export const SUPER_BRAIN_PROVIDER_NAME = 'SuperBrainContextProvider';
export const SUPER_BRAIN_SKILL = 'super-brain';

export interface SuperBrainOptions {
  /** The bundle folder (created and seeded from the template on the first run). */
  directory: string;
  /** Off: no notice, no tools, no consolidation (default true). */
  enabled?: boolean;
  /** Consolidate after every N runs of a session; 0 never (default 3). */
  consolidationInterval?: number;
  /** The agent's own model: the curator uses it unless `curatorClient` is given. */
  chatClient?: IChatClient;
  /** A separate model for the curator (`memoryModel`). */
  curatorClient?: IChatClient;
  /** Language of the memory notice and of what the curator writes (default `en`). */
  language?: MemoryLanguage;
}

/** What the provider keeps in each session. */
export interface SuperBrainState extends JSONObject {
  /** Runs since the last consolidation job. */
  runs: number;
  /** Messages of the session already handed to a consolidation job. */
  consolidated: number;
}

/** The entry points `load_skill` lists; `read_skill_resource` reads any page of the bundle. */
const ENTRY_RESOURCES = [
  'index.md',
  'log.md',
  ...REFERENCE_PAGES.map((p) => `references/${p}.md`),
  'assets/INDEX.md',
];

/**
 * Super-brain memory (SPEC §6): before each run, the memory notice and the tools `load_skill`,
 * `read_skill_resource` (over the bundle), `memory_save` and `memory_recall`; after every N runs
 * of a session, a consolidation job for the bundle's queue, where a curator agent rewrites pages.
 * The tools are injected (rule 2): never declared in `tools`, never routed to a workspace.
 */
export class SuperBrainContextProvider implements IContextProvider {
  readonly name = SUPER_BRAIN_PROVIDER_NAME;
  readonly kind = 'memory';
  readonly injectsTools: boolean;
  readonly bundle: MemoryBundle;
  readonly enabled: boolean;
  readonly consolidationInterval: number;
  readonly language: MemoryLanguage;
  private readonly skills: AgentSkill[];
  private readonly injected: readonly ITool[];
  private readonly curator: IChatClient | undefined;
  private readonly queue: ConsolidationQueue;

  /**
   * The optional packages the memory tools need that are not installed (`memory_recall`:
   * `minisearch`): a builder names them when it plans the agent, not at the model's first recall.
   */
  static missingPackages(): string[] {
    return recallEngineMissing();
  }

  constructor(options: SuperBrainOptions) {
    this.bundle = new MemoryBundle(options.directory);
    this.enabled = options.enabled ?? true;
    this.injectsTools = this.enabled;
    const interval = options.consolidationInterval ?? 3;
    if (!Number.isInteger(interval) || interval < 0)
      throw new ConfigError(`consolidationInterval must be a whole number ≥ 0, got ${interval}`);
    this.consolidationInterval = interval;
    this.language = options.language ?? 'en';
    this.curator = options.curatorClient ?? options.chatClient;
    // Read from the bundle before each run; until then, what `load_skill` would say is unknown.
    this.skills = [
      {
        metadata: { name: SUPER_BRAIN_SKILL, description: 'Persistent memory bundle' },
        instructions: '',
        directory: this.bundle.root,
        resources: ENTRY_RESOURCES,
      },
    ];
    this.injected = [
      createLoadSkillTool(this.skills),
      createReadSkillResourceTool(this.skills),
      createMemorySaveTool(this.bundle),
      createMemoryRecallTool(this.bundle),
    ];
    this.queue = ConsolidationQueue.forDirectory(this.bundle.root, runConsolidation);
  }

  get directory(): string {
    return this.bundle.root;
  }

  /** The tools each run gets (for `explain`: known before any run, nothing read from disk). */
  get tools(): readonly ITool[] {
    return this.enabled ? this.injected : [];
  }

  /** Jobs of this bundle in this process: completed, failed, queued, coalesced. */
  get stats(): ConsolidationStats {
    return this.queue.stats;
  }

  /** The outcome of the last job that finished. */
  get lastOutcome(): ConsolidationOutcome | undefined {
    return this.queue.last;
  }

  /** Whether a consolidation job runs or waits. */
  get consolidating(): boolean {
    return this.queue.busy;
  }

  async onInvoking(): Promise<ContextResult> {
    if (!this.enabled) return {};
    const warnings: string[] = [];
    // A bundle that cannot be seeded (a full disk, a read-only folder) keeps its tools: a save then
    // fails as a tool error the model reads, and recall still searches what is there.
    await this.bundle.seed().catch((error: unknown) => {
      warnings.push(`super-brain: cannot prepare ${this.bundle.root}: ${getErrorMessage(error)}`);
    });
    const file = join(this.bundle.root, 'SKILL.md');
    try {
      const text = await readBundleText(this.bundle.root, 'SKILL.md');
      if (text === undefined) throw new ConfigError(`${file}: no SKILL.md in the bundle`);
      const { metadata, instructions } = parseSkillMarkdown(text, file);
      const skill = this.skills[0] as AgentSkill;
      this.skills[0] = { ...skill, metadata: { ...metadata, name: SUPER_BRAIN_SKILL }, instructions };
    } catch (error) {
      // The memory still works; load_skill returns the last guide it read.
      warnings.push(`super-brain: ${getErrorMessage(error)}`);
    }
    if (!this.curator && this.consolidationInterval > 0)
      warnings.push('super-brain: no chat client for the curator, so memory is not consolidated');
    const result: ContextResult = { instructions: memoryNotice(this.language), tools: [...this.injected] };
    if (warnings.length > 0) result.warnings = warnings;
    return result;
  }

  onInvoked({ session, error }: InvokedContext): void {
    if (!this.enabled || this.consolidationInterval === 0 || error !== undefined) return;
    const state = this.state(session);
    state.runs++;
    if (state.runs >= this.consolidationInterval) this.enqueue(session, state);
    session.setProviderState(this.name, state);
  }

  /**
   * Queues a consolidation of the session's messages since its last job (or, without a session,
   * a tidy-up of the bundle) now, whatever the run count. `whenIdle()` waits for it.
   */
  consolidate(session?: ISession): void {
    if (!session) {
      this.queueJob([]);
      return;
    }
    const state = this.state(session);
    this.enqueue(session, state);
    session.setProviderState(this.name, state);
  }

  /** Resolves when this bundle's jobs are done (the signal stops the waiting, not the jobs). */
  whenIdle(signal?: AbortSignal): Promise<void> {
    return this.queue.whenIdle(signal);
  }

  private state(session: ISession): SuperBrainState {
    const saved = session.getProviderState<SuperBrainState>(this.name);
    return {
      runs: typeof saved?.runs === 'number' ? saved.runs : 0,
      consolidated: typeof saved?.consolidated === 'number' ? saved.consolidated : 0,
    };
  }

  private enqueue(session: ISession, state: SuperBrainState): void {
    const messages = session.messages.slice(Math.min(state.consolidated, session.messages.length));
    state.runs = 0;
    state.consolidated = session.messages.length;
    this.queueJob([{ sessionId: session.id, messages }]);
  }

  private queueJob(transcript: { sessionId?: string; messages: ISession['messages'] }[]): void {
    if (!this.curator) return;
    this.queue.enqueue({
      directory: this.bundle.root,
      client: this.curator,
      transcript,
      language: this.language,
    });
  }
}
