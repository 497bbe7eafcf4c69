import { ConfigError } from '@raf/core';
import * as z from 'zod';

/** The modes of `metadata.orchestration`, by their canonical names. */
export const ORCHESTRATION_MODES = [
  'magentic',
  'sequential',
  'concurrent',
  'handoff',
  'groupChat',
  'vote',
  'pipeline',
] as const;
export type OrchestrationMode = (typeof ORCHESTRATION_MODES)[number];

const MODE_SPELLINGS: Record<string, OrchestrationMode | 'workflow' | 'custom'> = {
  magentic: 'magentic',
  sequential: 'sequential',
  concurrent: 'concurrent',
  parallel: 'concurrent',
  handoff: 'handoff',
  groupchat: 'groupChat',
  group_chat: 'groupChat',
  vote: 'vote',
  pipeline: 'pipeline',
  workflow: 'workflow',
  custom: 'custom',
};

const mode = z.string().transform((value, ctx) => {
  const canonical = MODE_SPELLINGS[value.toLowerCase()];
  if (canonical === 'workflow' || canonical === 'custom') {
    ctx.addIssue({
      code: 'custom',
      message: `orchestration mode "${value}" is a graph of actions: write it as a kind: workflow file`,
    });
    return z.NEVER;
  }
  if (!canonical) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown orchestration mode "${value}"; known: magentic, sequential, concurrent (parallel), handoff, groupChat (group_chat), vote, pipeline`,
    });
    return z.NEVER;
  }
  return canonical;
});

const count = z.number().int().min(1);

const phase = z.strictObject({
  mode: z
    .enum(['sequential', 'concurrent', 'parallel'])
    .transform((m) => (m === 'parallel' ? 'concurrent' : m)),
  agents: z.array(z.string()).min(1),
});

/** The object form of `metadata.orchestration` (camelCase; snake_case is accepted by the loader). */
export const orchestrationObjectSchema = z.strictObject({
  mode: mode.optional(),
  maxIterations: count.optional(),
  triage: z.string().optional(),
  routingField: z.enum(['description', 'name']).optional(),
  coordinator: z.string().optional(),
  maxRounds: count.optional(),
  selector: z
    .string()
    .transform((value, ctx) => {
      const key = value.toLowerCase().replace(/_/g, '');
      const canonical = (
        {
          roundrobin: 'roundRobin',
          fixedorder: 'fixedOrder',
          llmcoordinator: 'llmCoordinator',
          llm: 'llmCoordinator',
        } as const
      )[key as 'roundrobin'];
      if (!canonical) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown selector "${value}"; known: roundRobin, fixedOrder, llmCoordinator`,
        });
        return z.NEVER;
      }
      return canonical;
    })
    .optional(),
  speakerOrder: z.array(z.union([z.number().int().min(0), z.string()])).optional(),
  terminationKeywords: z.array(z.string()).optional(),
  aggregator: z.enum(['majority', 'unanimous', 'weighted']).optional(),
  weights: z.array(z.number().nonnegative()).optional(),
  votingRounds: count.optional(),
  phases: z.array(phase).optional(),
  loopFromPhase: z.number().int().min(0).optional(),
  /** RAF: the pipeline stops looping once the last phase's answer holds one of these (default APPROVED, LGTM, PASS). */
  loopUntil: z.array(z.string()).optional(),
  passOutput: z.boolean().optional(),
});

/** `metadata.orchestration` after parsing: a mode and that mode's settings. */
export interface OrchestrationConfig {
  mode: OrchestrationMode;
  maxIterations?: number;
  triage?: string;
  routingField?: 'description' | 'name';
  coordinator?: string;
  maxRounds?: number;
  selector?: 'roundRobin' | 'fixedOrder' | 'llmCoordinator';
  speakerOrder?: (number | string)[];
  terminationKeywords?: string[];
  aggregator?: 'majority' | 'unanimous' | 'weighted';
  weights?: number[];
  votingRounds?: number;
  phases?: { mode: 'sequential' | 'concurrent'; agents: string[] }[];
  loopFromPhase?: number;
  loopUntil?: string[];
  passOutput?: boolean;
}

export type SafeParseOrchestrationResult =
  | { success: true; data: OrchestrationConfig }
  | { success: false; issues: { path: (string | number)[]; message: string }[] };

/**
 * `metadata.orchestration` (a string or an object; absent: magentic) with the legacy
 * `metadata.maxIterations` lifted in, as upstream.
 */
export function safeParseOrchestration(
  metadata: Record<string, unknown> | undefined,
): SafeParseOrchestrationResult {
  const raw = metadata?.orchestration;
  const legacy = metadata?.maxIterations ?? metadata?.max_iterations;
  let config: OrchestrationConfig;
  const fail = (error: z.ZodError): SafeParseOrchestrationResult => ({
    success: false,
    issues: error.issues.map((i) => ({ path: i.path as (string | number)[], message: i.message })),
  });
  if (raw === undefined || typeof raw === 'string') {
    const parsed = mode.safeParse(raw ?? 'magentic');
    if (!parsed.success) return fail(parsed.error);
    config = { mode: parsed.data };
  } else if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const parsed = orchestrationObjectSchema.safeParse(raw);
    if (!parsed.success) return fail(parsed.error);
    const { mode: m, ...rest } = parsed.data;
    config = { mode: m ?? 'magentic', ...rest } as OrchestrationConfig;
  } else {
    return { success: false, issues: [{ path: [], message: 'must be a mode name or an object with mode:' }] };
  }
  if (
    config.maxIterations === undefined &&
    typeof legacy === 'number' &&
    Number.isInteger(legacy) &&
    legacy > 0
  )
    config.maxIterations = legacy;
  return { success: true, data: config };
}

export function parseOrchestration(metadata: Record<string, unknown> | undefined): OrchestrationConfig {
  const parsed = safeParseOrchestration(metadata);
  if (!parsed.success)
    throw new ConfigError(
      `metadata.orchestration: ${parsed.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}
