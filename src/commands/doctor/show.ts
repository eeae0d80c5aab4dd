import { defineCommand } from '../../cmdutil/command.js';
import { describeError } from '../../core/errors.js';
import type { HttpClient } from '../../net/http.js';
import { checkBaseUrl } from '../../runtime/config.js';
import { terminalSafe } from '../../term/terminal-safe.js';
import {
  apiChecks,
  audioChecks,
  check,
  completionCheck,
  configCheck,
  dnsCheck,
  keyCheck,
  proxyCheck,
  tlsCheck,
  type Check,
} from './checks.js';

const MARK = { ok: 'ok  ', warn: 'warn', fail: 'fail' } as const;

export default defineCommand({
  description:
    'Why does svc not work here? One line per check (config, key source, base URL, DNS, proxy, TLS, the key, ' +
    'the clock, audio tools, shell completion): ok, warn or fail, with the fix. Exit 0 when nothing fails, 1 ' +
    'otherwise. Never prints the key or a proxy password. --json: {"ok", "checks": [{name, status, detail, fix}]}.',
  examples: ['svc doctor', 'svc doctor --json', 'svc --emulator doctor'],
  async run(ctx) {
    const checks = await networkChecks(ctx);
    checks.push(...(await audioChecks(ctx.env)), completionCheck(ctx.env));
    const ok = !checks.some((c) => c.status === 'fail');
    if (ctx.out.json) ctx.out.printJson({ ok, checks });
    else
      for (const c of checks) {
        // details quote the server, a proxy and the file system: no escape sequence of theirs reaches the terminal
        ctx.out.line(`${MARK[c.status]}  ${c.name.padEnd(13)} ${terminalSafe(c.detail)}`);
        if (c.fix && c.status !== 'ok') ctx.out.line(`${' '.repeat(20)}fix: ${terminalSafe(c.fix)}`);
      }
    return ok ? 0 : 1;
  },
});

/** Config, key, base URL, DNS, proxy, TLS, then the API itself (the key, the clock). */
async function networkChecks(ctx: Parameters<Parameters<typeof defineCommand>[0]['run']>[0]): Promise<Check[]> {
  let cfg: ReturnType<typeof ctx.config>;
  try {
    cfg = ctx.config();
  } catch (err) {
    return [check('config', 'fail', describeError(err), 'fix or remove the config file')];
  }
  const checks = [configCheck(cfg), keyCheck(cfg, !!ctx.globals.emulator)];
  let http: HttpClient | undefined;
  try {
    if (!ctx.globals.emulator) checkBaseUrl(cfg.baseUrl, ctx.env);
    http = await ctx.http({ requireKey: false });
    checks.push(check('base url', 'ok', http.baseUrl));
  } catch (err) {
    checks.push(check('base url', 'fail', describeError(err), 'fix --base-url, SVC_BASE_URL or base_url'));
    return checks;
  }
  const url = new URL(http.baseUrl);
  const { check: proxied, proxy } = await proxyCheck(url, cfg.network);
  checks.push(await dnsCheck(url, proxy), proxied);
  const tls = await tlsCheck(url, cfg.network, proxy);
  checks.push(tls);
  // a request that cannot get through says so above; it is not tried again
  const blocked = proxied.status === 'fail' || tls.status === 'fail';
  const unreached = [
    check('api', 'fail', `not reached: the ${proxied.status === 'fail' ? 'proxy' : 'tls'} row says why`),
    check('clock', 'warn', 'not checked: the server was not reached'),
  ];
  checks.push(...(blocked ? unreached : await apiChecks(http)));
  return checks;
}
