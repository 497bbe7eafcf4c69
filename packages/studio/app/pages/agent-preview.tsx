import { useEffect, useState } from 'preact/hooks';
import { sendJson } from '../api.js';
import { RuntimeTable } from '../components.js';
import { useStudio } from '../context.js';
import { Field } from '../field.js';
import type { ChangedFile, DiagnosedTool, Diagnostic, Plan, ToolPolicy } from '../types.js';

/** One tool's row of the editor: in the selection or not, and its own `toolPolicy` entries. */
interface ToolChoice {
  selected: boolean;
  override: '' | 'disabled' | 'enabled';
  routing: string;
}

/** The key the written policy uses for a tool (its name or an alias), if any. */
function writtenKey(tool: DiagnosedTool, keys: readonly string[]): string | undefined {
  return keys.find((k) => k === tool.name || tool.aliases.includes(k));
}

function choicesOf(d: Diagnostic, written: ToolPolicy | null): Record<string, ToolChoice> {
  const listed = (list: string[] | undefined, tool: DiagnosedTool) => !!writtenKey(tool, list ?? []);
  return Object.fromEntries(
    d.tools.map((tool) => {
      const routingKey = writtenKey(tool, Object.keys(written?.routing ?? {}));
      return [
        tool.name,
        {
          selected: tool.runtime.state !== 'not-selected',
          override: listed(written?.disabled, tool)
            ? 'disabled'
            : listed(written?.enabled, tool)
              ? 'enabled'
              : '',
          routing: routingKey ? written!.routing![routingKey]! : '',
        },
      ];
    }),
  );
}

/**
 * The written policy with the editor's choices for the target's tools: entries for other names
 * and the prompt hints stay as they are; a tool keeps the spelling the file gave it.
 */
function policyOf(
  d: Diagnostic,
  written: ToolPolicy | null,
  choices: Record<string, ToolChoice>,
): ToolPolicy {
  const mine = (key: string) => d.tools.some((t) => t.name === key || t.aliases.includes(key));
  const disabled = (written?.disabled ?? []).filter((k) => !mine(k));
  const enabled = (written?.enabled ?? []).filter((k) => !mine(k));
  const routing = Object.fromEntries(Object.entries(written?.routing ?? {}).filter(([k]) => !mine(k)));
  for (const tool of d.tools) {
    const choice = choices[tool.name];
    if (!choice) continue;
    const key = (list: readonly string[]) => writtenKey(tool, list) ?? tool.name;
    if (choice.override === 'disabled') disabled.push(key(written?.disabled ?? []));
    if (choice.override === 'enabled') enabled.push(key(written?.enabled ?? []));
    if (choice.routing) routing[key(Object.keys(written?.routing ?? {}))] = choice.routing;
  }
  return {
    ...(disabled.length > 0 && { disabled }),
    ...(enabled.length > 0 && { enabled }),
    ...(Object.keys(routing).length > 0 && { routing }),
    ...(written?.promptHints && { promptHints: written.promptHints }),
  };
}

const STRATEGIES = ['auto', 'force-local', 'force-main-process-proxy', 'force-disabled'];

/**
 * "The effective runtime profile that saving would produce": the user picks a sub-agent's (or the
 * agent's) tools and `toolPolicy` entries; the server builds the changed file in memory and
 * answers `runtimeDiagnostic()` of it and the YAML to copy. Nothing is written.
 */
export function AgentPreview({ agentId, plan }: { agentId: string; plan: Plan }) {
  const studio = useStudio();
  const targets = [plan.runtime, ...plan.runtime.subAgents];
  const startOf = (name: string) => {
    const current = targets.find((d) => d.agent === name) ?? plan.runtime;
    const written =
      current === plan.runtime
        ? plan.toolPolicy
        : (plan.orchestration?.subAgents.find((s) => s.name === name)?.toolPolicy ?? null);
    return { target: current.agent, current, written, initial: choicesOf(current, written) };
  };
  // The target and its choices change together, so a preview never mixes two targets.
  const [edit, setEdit] = useState(() => {
    const start = startOf(plan.runtime.subAgents[0]?.agent ?? plan.runtime.agent);
    return { ...start, choices: start.initial };
  });
  const { target, current, written, initial, choices } = edit;
  const isRoot = current === plan.runtime;
  const [result, setResult] = useState<{ diagnostic: Diagnostic; file: ChangedFile } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    let live = true;
    const policyChanged = current.tools.some((t) => {
      const a = choices[t.name];
      const b = initial[t.name];
      return a && b && (a.override !== b.override || a.routing !== b.routing);
    });
    const own = current.tools.filter((t) => initial[t.name]?.selected);
    const narrowed = own.some((t) => !choices[t.name]?.selected);
    const change = {
      ...(!isRoot && { subAgent: target }),
      ...(narrowed && { selection: own.filter((t) => choices[t.name]?.selected).map((t) => t.name) }),
      ...(policyChanged && { toolPolicy: policyOf(current, written, choices) }),
    };
    const base = `/api/agents/${encodeURIComponent(agentId)}`;
    setError(null);
    setCopied(false);
    Promise.all([
      sendJson<Diagnostic>('POST', `${base}/diagnostic/preview`, change),
      sendJson<ChangedFile>('POST', `${base}/yaml/preview`, change),
    ]).then(
      ([diagnostic, file]) => live && setResult({ diagnostic, file }),
      (e: Error) => {
        if (!live) return;
        setResult(null);
        setError(e.message);
      },
    );
    return () => {
      live = false;
    };
  }, [agentId, edit]);

  const choose = (tool: string, patch: Partial<ToolChoice>) =>
    setEdit((e) => ({ ...e, choices: { ...e.choices, [tool]: { ...e.choices[tool]!, ...patch } } }));
  const previewed = result
    ? isRoot
      ? [result.diagnostic, ...result.diagnostic.subAgents]
      : result.diagnostic.subAgents.filter((s) => s.agent === target)
    : [];
  const copy = () =>
    navigator.clipboard?.writeText(result?.file.section ?? '').then(
      () => setCopied(true),
      () => setCopied(false),
    );

  return (
    <section class="card" aria-label={studio.t('previewChange')} data-preview-editor={target}>
      <h3>{studio.t('previewChange')}</h3>
      <p class="muted">{studio.t('previewNote')}</p>
      <label class="picker">
        {studio.t('changeTarget')}{' '}
        <select
          id="preview-target"
          value={target}
          onChange={(e) => {
            const start = startOf((e.target as HTMLSelectElement).value);
            setEdit({ ...start, choices: start.initial });
          }}
        >
          {targets.map((d, i) => (
            <option key={d.agent} value={d.agent}>
              {i === 0 ? `${d.agent} (${studio.t('theAgent')})` : `${studio.t('subAgent')}: ${d.agent}`}
            </option>
          ))}
        </select>
      </label>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">{studio.t('tool')}</th>
              <th scope="col">{studio.t('selected')}</th>
              <th scope="col">{studio.t('override')}</th>
              <th scope="col">{studio.t('routing')}</th>
            </tr>
          </thead>
          <tbody>
            {current.tools.map((tool) => {
              const choice = choices[tool.name] ?? initial[tool.name];
              if (!choice) return null;
              const parents = !initial[tool.name]?.selected;
              return (
                <tr key={tool.name} data-choice={tool.name}>
                  <th scope="row">{tool.name}</th>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`${studio.t('selected')}: ${tool.name}`}
                      title={parents ? studio.t('parentTool') : undefined}
                      checked={choice.selected}
                      disabled={parents}
                      onChange={(e) =>
                        choose(tool.name, { selected: (e.target as HTMLInputElement).checked })
                      }
                    />
                  </td>
                  <td>
                    <select
                      aria-label={`${studio.t('override')}: ${tool.name}`}
                      data-override={tool.name}
                      value={choice.override}
                      onChange={(e) =>
                        choose(tool.name, {
                          override: (e.target as HTMLSelectElement).value as ToolChoice['override'],
                        })
                      }
                    >
                      <option value="">{studio.t('inherit')}</option>
                      <option value="disabled">{studio.t('disable')}</option>
                      <option value="enabled">{studio.t('enable')}</option>
                    </select>
                  </td>
                  <td>
                    <select
                      aria-label={`${studio.t('routing')}: ${tool.name}`}
                      data-routing={tool.name}
                      value={choice.routing}
                      onChange={(e) => choose(tool.name, { routing: (e.target as HTMLSelectElement).value })}
                    >
                      <option value="">{studio.t('inherit')}</option>
                      {STRATEGIES.map((s) => (
                        <option key={s} value={s}>
                          {s}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!result && !error && <p role="status">{studio.t('loading')}</p>}
      {result && (
        <div data-preview>
          {previewed.map((d) => (
            <RuntimeTable key={d.agent} diagnostic={d} title={studio.t('preview')} preview />
          ))}
          <h4>
            {studio.t('yamlToCopy')} <code>{result.file.file}</code>
            {result.file.target && <code> {result.file.target}</code>}
          </h4>
          <pre class="diff">
            <Field name="preview.section" value={result.file.section} />
          </pre>
          <button type="button" onClick={copy}>
            {studio.t(copied ? 'copied' : 'copy')}
          </button>
        </div>
      )}
    </section>
  );
}
