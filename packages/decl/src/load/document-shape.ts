import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { type Origins, writtenPath } from '../schema/normalize.js';
import { diagnosticAt, type Path, type SourceDocument } from './source-document.js';

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

// Fields of an agent that never appear in a prompt `template` ({ format, parser, content, sourcePath }).
const AGENT_FIELDS = ['model', 'instructions', 'tools', 'contexts', 'kind', 'name'];

/** Where a v1 file shows itself: the first of `id`, `model.model`, `tools[].type`. */
function legacySignal(root: Mapping): Path | undefined {
  if ('id' in root && !('name' in root)) return ['id'];
  if (isMapping(root.model) && 'model' in root.model && !('id' in root.model)) return ['model', 'model'];
  if (Array.isArray(root.tools)) {
    const index = root.tools.findIndex((t) => isMapping(t) && 'type' in t && !('kind' in t));
    if (index >= 0) return ['tools', index, 'type'];
  }
  return undefined;
}

/**
 * Documents that are not a prompt agent get one diagnostic instead of a wall of schema errors:
 * an AgentManifest (a `template:` wrapping the agent), a `kind: hosted` agent,
 * or a file in the retired v1 format. Undefined for a prompt agent.
 */
export function classifyDocument(
  document: SourceDocument,
  root: Mapping,
  origins: Origins,
): Diagnostic | undefined {
  const at = (path: Path, message: string, key = true) =>
    diagnosticAt(document, writtenPath(root, origins, path), message, 'error', { key });
  const template = root.template;
  if (isMapping(template) && AGENT_FIELDS.some((field) => field in template)) {
    return at(
      ['template'],
      'contains a Manifest; expected a bare AgentDefinition — remove the outer `template` (its fields go at the top level; `parameters` and `resources` are not used)',
    );
  }
  if (root.kind === 'hosted') {
    return at(
      ['kind'],
      'parse only: hosted (container) agents need an external deployment; RAF cannot build or run them',
      false,
    );
  }
  const legacy = legacySignal(root);
  if (legacy) {
    return at(
      legacy,
      'this is the retired Agent Declaration Protocol v1 format; rewrite it as a current agent: `name:` instead of `id:`, `model: { id: … }` instead of `model.model`, and `tools: [{ kind: file }]` instead of `type: builtin`',
    );
  }
  return undefined;
}
