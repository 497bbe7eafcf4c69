import type { ITool } from '@raf/core';

/**
 * What one run offers the model, from every tool the agent has: a view may drop tools, change
 * their descriptions or stand in for them (a worker's proxy, a wrapper that makes each call a
 * durable step). Tools not returned cannot be called.
 */
export type ToolView = (tools: readonly ITool[]) => readonly ITool[];
