import { useStudio } from './context.js';
import { Field } from './field.js';
import type { Diagnostic } from './types.js';

export function AgentPicker() {
  const studio = useStudio();
  if (studio.agents.length === 0) return <p>{studio.t('noAgents')}</p>;
  return (
    <label class="picker">
      {studio.t('chooseAgent')}{' '}
      <select
        value={studio.agentId}
        onChange={(e) => studio.setAgentId((e.target as HTMLSelectElement).value)}
      >
        {studio.agents.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name} ({a.file})
          </option>
        ))}
      </select>
    </label>
  );
}

export function YesNo(props: { name: string; value: boolean }) {
  const studio = useStudio();
  return (
    <Field name={props.name} value={props.value}>
      {studio.t(props.value ? 'yes' : 'no')}
    </Field>
  );
}

/**
 * One agent's (or sub-agent's) section of `runtimeDiagnostic()`: its worker policy and, per tool,
 * governance, static profile and this session's state, route and reason, in the table's words.
 */
export function RuntimeTable(props: {
  diagnostic: Diagnostic;
  title: string;
  compact?: boolean;
  /** A preview's table: marked `data-preview-agent` so it is never taken for the agent's own. */
  preview?: boolean;
}) {
  const studio = useStudio();
  const { diagnostic: d } = props;
  const policy = d.workerPolicy;
  return (
    <section
      class="card"
      data-agent={props.preview ? undefined : d.agent}
      data-preview-agent={props.preview ? d.agent : undefined}
      aria-label={`${props.title}: ${d.agent}`}
    >
      <h3>
        {props.title}: {d.agent}
      </h3>
      <p class="muted">
        {studio.t('workerPolicy')}:{' '}
        {policy ? (
          <>
            <span>{studio.t('roots')} </span>
            <Field name="workerPolicy.workspaceRoots" value={policy.workspaceRoots}>
              {policy.workspaceRoots.join(', ') || '—'}
            </Field>
            {' · '}
            {studio.t('shellAllowed')} <YesNo name="workerPolicy.allowShell" value={policy.allowShell} />
            {' · '}
            {studio.t('readonly')} <YesNo name="workerPolicy.readonly" value={policy.readonly} />
          </>
        ) : (
          <Field name="workerPolicy" value={null} />
        )}
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">{studio.t('tool')}</th>
            {!props.compact && <th scope="col">{studio.t('governance')}</th>}
            {!props.compact && <th scope="col">{studio.t('profile')}</th>}
            <th scope="col">{studio.t('route')}</th>
            <th scope="col">{studio.t('why')}</th>
          </tr>
        </thead>
        <tbody>
          {d.tools.map((tool) => {
            const f = (path: string) => `tool.${tool.name}.${path}`;
            const g = tool.governance;
            return (
              <tr key={tool.name} data-tool={tool.name}>
                <th scope="row">
                  <Field name={f('name')} value={tool.name} />
                  {tool.aliases.length > 0 && (
                    <Field class="muted" name={f('aliases')} value={tool.aliases}>
                      {` (${tool.aliases.join(', ')})`}
                    </Field>
                  )}
                </th>
                {!props.compact && (
                  <td>
                    <Field name={f('governance.enabled')} value={g.enabled}>
                      {g.enabled
                        ? studio.t('enabled')
                        : studio.label(
                            g.disabledBy === 'agent'
                              ? studio.labels.governance.disabledByAgent
                              : studio.labels.governance.disabled,
                          )}
                    </Field>
                    <Field class={g.core ? 'badge' : 'sr-only'} name={f('governance.core')} value={g.core}>
                      {g.core ? studio.label(studio.labels.governance.core) : ''}
                    </Field>
                    {' · '}
                    <Field name={f('governance.workerRoutingStrategy')} value={g.workerRoutingStrategy} />
                    <Field
                      class={g.promptHint === null ? 'sr-only' : 'hint'}
                      name={f('governance.promptHint')}
                      value={g.promptHint}
                    >
                      {g.promptHint === null ? '' : ` · ${g.promptHint}`}
                    </Field>
                    {g.disabledBy && (
                      <Field class="sr-only" name={f('governance.disabledBy')} value={g.disabledBy} />
                    )}
                  </td>
                )}
                {!props.compact && (
                  <td>
                    <Field name={f('profile.route')} value={tool.profile.route}>
                      {studio.label(studio.labels.routes[tool.profile.route])}
                    </Field>
                  </td>
                )}
                <td>
                  <Field
                    class={`route route-${tool.runtime.route}`}
                    name={f('runtime.route')}
                    value={tool.runtime.route}
                  >
                    {studio.label(studio.labels.routes[tool.runtime.route])}
                  </Field>
                  <Field class="sr-only" name={f('runtime.state')} value={tool.runtime.state} />
                </td>
                <td>
                  <Field name={f('runtime.blockedReason')} value={tool.runtime.blockedReason}>
                    {studio.label(tool.runtime.label ?? studio.labels.states[tool.runtime.state])}
                  </Field>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
