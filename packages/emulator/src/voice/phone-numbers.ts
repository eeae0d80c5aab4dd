// The team's phone numbers (v1 and v2 records), shared by the phone routes, agents and simulated calls.
import type { Backend } from '../state/backend.js';

export interface PhoneV1Record {
  phone_number_id: string;
  team_id: string;
  phone_number: string;
  name: string;
  description: string | null;
  area_code: string;
  agent_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface PhoneV2Record {
  phone_number_id: string;
  team_id: string;
  phone_number: string;
  name: string;
  origin: 'svc_provisioned' | 'byo_trunk';
  agent_id: string | null;
  created_at: string;
  webhook: { name: string; url: string; secret: string } | null;
  sip_auth: { allowed_addresses: string[] } | null;
}

export function phoneNumbersV1(core: Backend) {
  return core.store.collection<PhoneV1Record>('phone_numbers');
}

export function phoneNumbersV2(core: Backend) {
  return core.store.collection<PhoneV2Record>('phone_numbers_v2');
}
