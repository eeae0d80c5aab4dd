import type { Output } from '../../term/output.js';
import type { PhoneNumber } from '../../endpoints/phone.js';

export function printNumber(out: Output, pn: PhoneNumber): void {
  const pairs: [string, unknown][] = [
    ['phone_number_id', pn.phone_number_id],
    ['phone_number', pn.phone_number],
    ['name', pn.name ?? null],
    ['description', pn.description ?? null],
    ['area_code', pn.area_code],
    ['origin', pn.origin],
    ['agent_id', pn.agent_id ?? null],
    ['created_at', pn.created_at],
    ['updated_at', pn.updated_at],
  ];
  out.details(pairs);
}

/** 3-digit US area code: the first digit is 2-9 (NANP). */
export const AREA_CODE = /^[2-9]\d{2}$/;
/** E.164: + then up to 15 digits, no leading zero. */
export const E164 = /^\+[1-9]\d{1,14}$/;
