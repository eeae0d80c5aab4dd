// The phone numbers of agents, read through the phone numbers API: v1 numbers carry the agent they are assigned
// to (one list read serves every agent of a run); v2 numbers are listed per agent (`agent_id` query).
import { UsageError } from '../../core/errors.js';
import { listNumbers, listV2Page, type PhoneNumber } from '../../endpoints/phone.js';
import type { HttpClient } from '../../net/http.js';

/** Every v1 number of the team (the list's largest reply). */
export async function teamNumbers(http: HttpClient): Promise<PhoneNumber[]> {
  return (await listNumbers(http, 1000)).phone_numbers;
}

/** The v2 numbers routed to an agent, every page. */
export async function v2NumbersOf(http: HttpClient, agentId: string): Promise<PhoneNumber[]> {
  const out: PhoneNumber[] = [];
  let token: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const reply = await listV2Page(http, { agent_id: agentId, limit: 100, pagination_token: token });
    out.push(...reply.phone_numbers);
    token = typeof reply.pagination_token === 'string' && reply.pagination_token !== '' ? reply.pagination_token : '';
    if (!token) break;
  }
  return out;
}

/** The v1 number an agent file names: by id or by its E.164 number. */
export function findNumber(numbers: PhoneNumber[], ref: unknown, where: string): PhoneNumber {
  if (typeof ref !== 'string' || ref.trim() === '')
    throw new UsageError(
      `${where}: ${JSON.stringify(ref)} is not allowed: a phone number id, an E.164 number, or null`,
    );
  const found = numbers.find((n) => n.phone_number_id === ref || n.phone_number === ref);
  if (!found)
    throw new UsageError(
      `${where}: ${ref} is not allowed: no phone number of the team has this id or number (svc phone list shows ` +
        'them; svc phone buy gets one)',
    );
  return found;
}

/** How a number is written in a file: as the file wrote it when it names the same number, else its E.164 form. */
export function numberRef(n: PhoneNumber, local: unknown): string {
  if (local === n.phone_number_id || local === n.phone_number) return local as string;
  return n.phone_number ?? n.phone_number_id;
}
