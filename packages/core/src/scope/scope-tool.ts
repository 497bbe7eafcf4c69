import type { ITool } from '../tool/tool.js';
import type { WorkspaceScope } from './workspace-scope.js';

/** A tool that can be bound to a workspace. Detection is structural, so user tools qualify too. */
export interface IScopeTool<Args = unknown> extends ITool<Args> {
  createScoped(scope: WorkspaceScope): ITool<Args>;
}

export function isScopeTool<Args>(tool: ITool<Args>): tool is IScopeTool<Args> {
  return typeof (tool as Partial<IScopeTool<Args>>).createScoped === 'function';
}
