// The team's voice agents as stored, shared by the agent routes and realtime sessions.
import type { Backend } from '../state/backend.js';

type Json = Record<string, any>;

export interface AgentRecord {
  agent_id: string;
  team_id: string;
  name: string;
  instructions: string | null;
  tools: unknown[] | null;
  voice: Json | null;
  collection_ids: string[];
  created_at: string;
  updated_at: string;
}

export function agents(core: Backend) {
  return core.store.collection<AgentRecord>('agents');
}
