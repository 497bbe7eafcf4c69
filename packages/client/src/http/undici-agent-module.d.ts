// undici publishes no types for its modules, only for the entry: the class is the entry's Agent.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const AgentClass: typeof Agent;
  export default AgentClass;
}
