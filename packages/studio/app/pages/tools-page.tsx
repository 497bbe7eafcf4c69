import { useEffect, useState } from 'preact/hooks';
import { getJson, sendJson } from '../api.js';
import { YesNo } from '../components.js';
import { useStudio } from '../context.js';
import { Field } from '../field.js';
import type { GovernanceReport, GovernedTool } from '../types.js';

type Change = Partial<
  Pick<GovernedTool['governance'], 'enabled' | 'core' | 'workerRoutingStrategy' | 'promptHint'>
>;

/**
 * Tools: the project's global governance for every tool and the static profile it gives, edited
 * through `PATCH /api/governance`; the page shows what the server answers, never its own guess.
 */
export function ToolsPage() {
  const studio = useStudio();
  const [report, setReport] = useState<GovernanceReport | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    getJson<GovernanceReport>('/api/governance').then(setReport, (e: Error) => setError(e.message));
  }, []);

  const change = (tool: string, patch: Change) => {
    setError(null);
    sendJson<GovernanceReport>('PATCH', '/api/governance', { tool, ...patch }).then(setReport, (e: Error) =>
      setError(e.message),
    );
  };

  if (!report) return <p role="status">{error ?? studio.t('loading')}</p>;
  return (
    <>
      <p class="muted">
        {studio.t('governanceFile')}: <code>{report.file}</code>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="scroll">
        <table class="tools">
          <thead>
            <tr>
              <th scope="col">{studio.t('tool')}</th>
              <th scope="col">{studio.t('enabled')}</th>
              <th scope="col">{studio.t('core')}</th>
              <th scope="col">{studio.t('routing')}</th>
              <th scope="col">{studio.t('hint')}</th>
              <th scope="col">{studio.t('kind')}</th>
              <th scope="col">{studio.t('mode')}</th>
              <th scope="col">{studio.t('worker')}</th>
              <th scope="col">{studio.t('routingHint')}</th>
              <th scope="col">{studio.t('risk')}</th>
              <th scope="col">{studio.t('profile')}</th>
            </tr>
          </thead>
          <tbody>
            {report.tools.map((tool) => (
              <ToolRow key={tool.name} tool={tool} strategies={report.strategies} onChange={change} />
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function ToolRow(props: {
  tool: GovernedTool;
  strategies: string[];
  onChange(tool: string, change: Change): void;
}) {
  const studio = useStudio();
  const { tool } = props;
  const g = tool.governance;
  const m = tool.manifest;
  const f = (path: string) => `tool.${tool.name}.${path}`;
  const id = (what: string) => `${what}-${tool.name}`;
  return (
    <tr data-tool={tool.name}>
      <th scope="row">
        <Field name={f('name')} value={tool.name} />
        {tool.aliases.length > 0 && (
          <Field class="muted" name={f('aliases')} value={tool.aliases}>
            {` (${tool.aliases.join(', ')})`}
          </Field>
        )}
      </th>
      <td>
        <input
          type="checkbox"
          id={id('enabled')}
          checked={g.enabled}
          disabled={g.core}
          aria-label={`${studio.t('enabled')}: ${tool.name}`}
          title={g.core ? studio.label(studio.labels.governance.core) : undefined}
          onChange={(e) => props.onChange(tool.name, { enabled: (e.target as HTMLInputElement).checked })}
        />{' '}
        <Field name={f('governance.enabled')} value={g.enabled}>
          {g.enabled ? studio.t('yes') : studio.label(studio.labels.governance.disabled)}
        </Field>
      </td>
      <td>
        <input
          type="checkbox"
          id={id('core')}
          checked={g.core}
          aria-label={`${studio.t('core')}: ${tool.name}`}
          onChange={(e) => props.onChange(tool.name, { core: (e.target as HTMLInputElement).checked })}
        />{' '}
        <Field name={f('governance.core')} value={g.core}>
          {g.core ? studio.label(studio.labels.governance.core) : studio.t('no')}
        </Field>
      </td>
      <td>
        <select
          aria-label={`${studio.t('routing')}: ${tool.name}`}
          value={g.workerRoutingStrategy}
          data-field={f('governance.workerRoutingStrategy')}
          data-value={JSON.stringify(g.workerRoutingStrategy)}
          onChange={(e) =>
            props.onChange(tool.name, { workerRoutingStrategy: (e.target as HTMLSelectElement).value })
          }
        >
          {props.strategies.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </td>
      <td>
        <input
          type="text"
          aria-label={`${studio.t('hint')}: ${tool.name}`}
          value={g.promptHint ?? ''}
          data-field={f('governance.promptHint')}
          data-value={JSON.stringify(g.promptHint)}
          onChange={(e) =>
            props.onChange(tool.name, { promptHint: (e.target as HTMLInputElement).value || null })
          }
        />
      </td>
      {m ? (
        <>
          <td>
            <Field name={f('manifest.kind')} value={m.kind} />
          </td>
          <td>
            <Field name={f('manifest.executionMode')} value={m.executionMode} />
          </td>
          <td>
            <YesNo name={f('manifest.supportedInWorker')} value={m.supportedInWorker} />
          </td>
          <td>
            <Field name={f('manifest.workerRoutingHint')} value={m.workerRoutingHint} />
          </td>
          <td class="badges">
            <Badge name={f('manifest.requiresShell')} on={m.requiresShell} text={studio.t('shell')} />
            <Badge name={f('manifest.requiresWrite')} on={m.requiresWrite} text={studio.t('write')} />
            <Badge
              name={f('manifest.requiresSkillScope')}
              on={m.requiresSkillScope}
              text={studio.t('skill')}
            />
          </td>
          <td>
            <Field name={f('profile.route')} value={tool.profile?.route ?? null}>
              {tool.profile ? studio.label(studio.labels.routes[tool.profile.route]) : '—'}
            </Field>
          </td>
        </>
      ) : (
        <td colSpan={6}>
          <Field name={f('manifest')} value={null} />
        </td>
      )}
    </tr>
  );
}

/** A risk badge: shown when the manifest says the tool needs it (the value is kept for the tests). */
function Badge(props: { name: string; on: boolean; text: string }) {
  return (
    <Field class={props.on ? 'badge risk' : 'sr-only'} name={props.name} value={props.on}>
      {props.on ? props.text : ''}
    </Field>
  );
}
