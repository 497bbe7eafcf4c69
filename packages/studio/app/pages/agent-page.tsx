import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { AgentPicker, RuntimeTable, YesNo } from '../components.js';
import { useStudio } from '../context.js';
import { Field } from '../field.js';
import type { Plan, ToolPolicy } from '../types.js';
import { AgentPreview } from './agent-preview.js';

/**
 * Agent: the effective plan of `explain()` (tools after name-expansion, workspace routing,
 * gating, injected tools, provider order) and its `runtime` (governance with the agent's
 * overrides, each sub-agent's tools and effective runtime profile), as the server sends them.
 */
export function AgentPage() {
  const studio = useStudio();
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!studio.agentId) return;
    setPlan(null);
    setError(null);
    getJson<Plan>(`/api/agents/${encodeURIComponent(studio.agentId)}/plan`).then(setPlan, (e: Error) =>
      setError(e.message),
    );
  }, [studio.agentId]);

  return (
    <>
      <AgentPicker />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {!plan && !error && <p role="status">{studio.t('loading')}</p>}
      {plan && <PlanView plan={plan} />}
      {plan && studio.agentId && plan.runtime.tools.length + plan.runtime.subAgents.length > 0 && (
        <AgentPreview key={studio.agentId} agentId={studio.agentId} plan={plan} />
      )}
    </>
  );
}

function PlanView({ plan }: { plan: Plan }) {
  const studio = useStudio();
  return (
    <>
      <section class="card" aria-label={studio.t('model')}>
        <h2>
          <Field name="plan.name" value={plan.name} />
        </h2>
        <p>
          {studio.t('model')}: <Field name="plan.model.provider" value={plan.model.provider} />/
          <Field name="plan.model.id" value={plan.model.id} /> · tool loop{' '}
          <YesNo name="plan.toolLoop" value={plan.toolLoop} /> · max{' '}
          <Field name="plan.maxToolRounds" value={plan.maxToolRounds} />
        </p>
        <h3>{studio.t('providers')}</h3>
        <ol>
          {plan.contexts.map((c) => (
            <li key={`${c.kind}:${c.name}`} data-context={c.name}>
              <Field name={`context.${c.name}.kind`} value={c.kind} /> <strong>{c.name}</strong>
            </li>
          ))}
        </ol>
        {plan.orchestration && (
          <p>
            {studio.t('subAgent')}: <Field name="plan.orchestration.mode" value={plan.orchestration.mode} /> ·{' '}
            {plan.orchestration.subAgents.map((s) => `${s.name} (${s.runtime})`).join(', ')}
          </p>
        )}
      </section>
      <section class="card" aria-label={studio.t('planTools')}>
        <h3>{studio.t('planTools')}</h3>
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">{studio.t('tool')}</th>
                <th scope="col">{studio.t('kind')}</th>
                <th scope="col">{studio.t('source')}</th>
                <th scope="col">{studio.t('gated')}</th>
                <th scope="col">{studio.t('mode')}</th>
                <th scope="col">{studio.t('route')}</th>
              </tr>
            </thead>
            <tbody>
              {plan.tools.map((tool) => {
                const f = (path: string) => `plan.tool.${tool.name}.${path}`;
                return (
                  <tr key={tool.name} data-plan-tool={tool.name}>
                    <th scope="row">
                      <Field name={f('name')} value={tool.name} />
                    </th>
                    <td>
                      <Field name={f('kind')} value={tool.kind} />
                    </td>
                    <td>
                      <Field name={f('source')} value={tool.source} />{' '}
                      <Field class="muted" name={f('workspace')} value={tool.workspace}>
                        {tool.workspace ?? tool.context ?? ''}
                      </Field>
                    </td>
                    <td>
                      <Field name={f('approval')} value={tool.approval} />{' '}
                      <Field class="sr-only" name={f('gated')} value={tool.gated} />
                    </td>
                    <td>
                      <Field name={f('executionMode')} value={tool.executionMode} />
                    </td>
                    <td>
                      <Field class={`route route-${tool.route}`} name={f('route')} value={tool.route}>
                        {studio.label(studio.labels.routes[tool.route])}
                      </Field>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card" aria-label={studio.t('overrides')}>
        <h3>{studio.t('overrides')}</h3>
        <dl class="overrides">
          <dt>{plan.name}</dt>
          <dd>
            <PolicyView name="plan.toolPolicy" policy={plan.toolPolicy} />
          </dd>
          {plan.orchestration?.subAgents.map((s) => (
            <Fragment key={s.name}>
              <dt>
                {studio.t('subAgent')}: {s.name}
              </dt>
              <dd>
                <PolicyView name={`plan.subAgent.${s.name}.toolPolicy`} policy={s.toolPolicy} />
              </dd>
            </Fragment>
          ))}
        </dl>
      </section>
      <RuntimeTable diagnostic={plan.runtime} title={studio.t('runtime')} />
      {plan.runtime.subAgents.map((sub) => (
        <RuntimeTable key={sub.agent} diagnostic={sub} title={studio.t('subAgent')} />
      ))}
      {plan.warnings.length > 0 && (
        <section class="card" aria-label={studio.t('warnings')}>
          <h3>{studio.t('warnings')}</h3>
          <ul>
            {plan.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

/** A `toolPolicy` as the file writes it, one line per entry. */
function PolicyView({ name, policy }: { name: string; policy: ToolPolicy | null }) {
  const studio = useStudio();
  const lines = policy
    ? [
        ...(policy.disabled?.length ? [`disabled: ${policy.disabled.join(', ')}`] : []),
        ...(policy.enabled?.length ? [`enabled: ${policy.enabled.join(', ')}`] : []),
        ...Object.entries(policy.routing ?? {}).map(([tool, s]) => `routing ${tool}: ${s}`),
        ...Object.entries(policy.promptHints ?? {}).map(([tool, h]) => `promptHint ${tool}: ${h}`),
      ]
    : [];
  return (
    <Field name={name} value={policy}>
      {lines.length > 0 ? lines.join(' · ') : studio.t('none')}
    </Field>
  );
}
