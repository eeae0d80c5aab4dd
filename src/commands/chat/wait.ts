// Poll a deferred chat completion until it is ready (202 while pending), with a spinner on a terminal.
import { getDeferredChat, type ChatResponse } from '../../endpoints/chat.js';
import type { Context } from '../../runtime/context.js';
import { sleep, type HttpClient } from '../../net/http.js';

export async function waitForDeferred(
  ctx: Context,
  http: HttpClient,
  requestId: string,
  intervalMs = 1000,
): Promise<ChatResponse> {
  const started = Date.now();
  const spinner = await ctx.out.spinner(`waiting for ${requestId}`);
  try {
    for (let delay = Math.min(250, intervalMs); ; delay = Math.min(delay * 2, intervalMs)) {
      const res = await getDeferredChat(http, requestId);
      if (res) {
        spinner.stop();
        return res;
      }
      spinner.update(`waiting for ${requestId} (${Math.round((Date.now() - started) / 1000)} s)`);
      await sleep(delay, ctx.signal);
    }
  } finally {
    spinner.stop();
  }
}
