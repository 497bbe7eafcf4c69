import { DeclAgentBuilder, formatDiagnostic } from './src/index.ts';
const cases: Record<string, string> = {
  dup: 'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\ntools:\n  - kind: file\n  - kind: shell\n',
  workflow:
    'kind: workflow\nname: w\ntrigger:\n  kind: OnConversationStart\n  actions:\n    - kind: SendActivity\n      activity: { text: hi }\n',
  hosted: 'kind: hosted\nname: h\nprotocol_versions: [v1]\n',
  manifest:
    'name: m\ntemplate:\n  kind: prompt\n  name: inner\n  model: { id: gpt-4o }\nparameters: { properties: [] }\n',
  v1: 'id: old\nmodel:\n  model: gpt-4\ntools:\n  - type: builtin\n    name: read_file\n',
  ref: 'name: a\nmodel:\n  id: m\n  connection: { kind: reference, name: corp }\n',
  auth: 'name: a\nmodel:\n  id: m\n  provider: custom\n  connection: { endpoint: "http://127.0.0.1:9/v1", auth_mode: entra_id, X-Org: acme }\n  options: { temperature: 0.1, enable_thinking: true, chat_template_kwargs: { enable_thinking: false } }\n',
  websearch:
    'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\ntools:\n  - kind: web_search\n  - kind: webb\n',
  config:
    'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\ncontexts:\n  - kind: workspace\n    config: { polcy: deny, root: 5 }\n  - kind: compression\n    name: token_budget\n    config: { maxTokens: many }\n  - kind: workspace\n    name: w2\n    config: { root: "" , colour: red}\n',
  all: 'name: a\nmodel: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }\nmaxToolRounds: 0\ntools:\n  - kind: file\n    name: read_file\n  - kind: file\n    name: read_file\n  - kind: function\n    name: nope\n  - kind: web\n  - kind: file\n    approval_mode: sometimes\ncontexts:\n  - kind: skills\n    name: none\n',
};
for (const [name, yaml] of Object.entries(cases)) {
  const r = await new DeclAgentBuilder()
    .fromYaml(yaml, `/tmp/scratch/${name}.yaml`)
    .withEnvironment({})
    .validate();
  console.log('==', name, r.ok);
  for (const d of [...r.errors, ...r.warnings]) console.log(' ', d.severity, formatDiagnostic(d));
}
