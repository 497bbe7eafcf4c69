import { ConfigError, type ITool, type ToolDefinition, toToolDefinition } from '@raf/core';

/** The agent's static tools, by name. Names are unique: a second tool with a taken name is a config error. */
export class ToolRegistry {
  private readonly tools = new Map<string, ITool>();

  constructor(tools: Iterable<ITool> = []) {
    for (const tool of tools) this.register(tool);
  }

  register(tool: ITool): this {
    if (this.tools.has(tool.name)) {
      throw new ConfigError(
        `tool "${tool.name}" is registered twice; tool names must be unique within an agent`,
      );
    }
    this.tools.set(tool.name, tool);
    return this;
  }

  get(name: string): ITool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  list(): ITool[] {
    return [...this.tools.values()];
  }

  get size(): number {
    return this.tools.size;
  }

  definitions(): ToolDefinition[] {
    return this.list().map(toToolDefinition);
  }
}

/** Static tools first, then provider tools whose names are new: the first to name a tool wins. */
export function mergeTools(
  first: readonly ITool[],
  second: readonly ITool[],
): { tools: ITool[]; shadowed: string[] } {
  const seen = new Set<string>();
  const tools: ITool[] = [];
  const shadowed: string[] = [];
  for (const tool of [...first, ...second]) {
    if (seen.has(tool.name)) shadowed.push(tool.name);
    else {
      seen.add(tool.name);
      tools.push(tool);
    }
  }
  return { tools, shadowed };
}
