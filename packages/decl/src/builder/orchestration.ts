/** The modes of `metadata.orchestration` (SPEC §10, upstream digest §7), with their aliases. */
const MODES: Readonly<Record<string, string>> = {
  magentic: 'magentic',
  sequential: 'sequential',
  concurrent: 'concurrent',
  parallel: 'concurrent',
  handoff: 'handoff',
  groupChat: 'groupChat',
  group_chat: 'groupChat',
  groupchat: 'groupChat',
  vote: 'vote',
  pipeline: 'pipeline',
  workflow: 'workflow',
  custom: 'custom',
};

/** How an agent with sub-agents runs them. */
export interface Orchestration {
  mode: string;
  /** Delegations per run of the coordinator (magentic; default 15). */
  maxIterations: number;
  /** The `metadata.orchestration` object as written (for the modes `@raf/workflow` runs). */
  options: Record<string, unknown>;
}

export const DEFAULT_MAX_ITERATIONS = 15;

/**
 * Reads `metadata.orchestration` (a mode name or `{ mode, maxIterations, … }`; legacy
 * `metadata.maxIterations`/`max_iterations` too). No key means `magentic`, the delegating
 * coordinator. Returns a problem (with the metadata path it concerns) for what cannot be read.
 */
export function orchestrationOf(metadata: Record<string, unknown> | undefined): {
  orchestration: Orchestration;
  problem?: { path: string[]; message: string };
} {
  const raw = metadata?.orchestration;
  const options =
    raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const written = typeof raw === 'string' ? raw : options.mode;
  const legacy = metadata?.maxIterations ?? metadata?.max_iterations;
  const iterations = options.maxIterations ?? options.max_iterations ?? legacy;
  const orchestration: Orchestration = { mode: 'magentic', maxIterations: DEFAULT_MAX_ITERATIONS, options };
  if (iterations !== undefined) {
    if (typeof iterations !== 'number' || !Number.isInteger(iterations) || iterations < 1) {
      return {
        orchestration,
        problem: {
          path: ['metadata', 'orchestration'],
          message: `maxIterations must be a whole number ≥ 1 (got ${JSON.stringify(iterations)})`,
        },
      };
    }
    orchestration.maxIterations = iterations;
  }
  if (written === undefined) return { orchestration };
  const mode = typeof written === 'string' ? MODES[written] : undefined;
  if (!mode) {
    return {
      orchestration,
      problem: {
        path: ['metadata', 'orchestration'],
        message: `unknown orchestration ${JSON.stringify(written)}; use one of ${[...new Set(Object.values(MODES))].join(', ')}`,
      },
    };
  }
  orchestration.mode = mode;
  return { orchestration };
}
